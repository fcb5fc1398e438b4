/* printa() with formats: keys in order, %@ for the value, widths. */
#pragma D option quiet

BEGIN
{
	@c["alpha", 1] = count();
	@c["beta", 2] = count();
	@c["beta", 2] = count();
	@s["alpha", 1] = sum(100);
	@s["beta", 2] = sum(-7);
	printa("%-8s %3d -> %@d\n", @c);
	printa("[%s|%@5d]\n", @s);
	printa("%s %d %@d %@d\n", @c, @s);
	printa(@c);
	exit(0);
}
