/* clear() zeroes the values but keeps the keys. */
#pragma D option quiet

BEGIN
{
	@a["k"] = count();
	@a["l"] = count();
	clear(@a);
	printa(@a);
	exit(0);
}
