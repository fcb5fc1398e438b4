/*
 * @@runtest-opts: -q
 * Integer keys sort as dtrace's dt_aggregate_keycmp() compares them: as
 * unsigned values of the key's size, so negative keys follow the positive
 * ones (-5 before -1); equal values are ordered by key, unequal ones by
 * value (sums compare signed: -4 before 3).  The same with aggsortkey.
 */
BEGIN
{
	@c[-1] = count();
	@c[3] = count();
	@c[-5] = count();
	@c[0] = count();
	@s[-2, "x"] = sum(-4);
	@s[1, "y"] = sum(3);
	@s[-7, "z"] = sum(3);
	@k[(short)-3] = sum(1);
	@k[(short)2] = sum(5);
	exit(0);
}

END
{
	printa("c %d %@d\n", @c);
	printa("s %d %s %@d\n", @s);
	printa("k %d %@d\n", @k);
	setopt("aggsortkey");
	printa("K %d %@d\n", @k);
	printa("S %d %s %@d\n", @s);
}
