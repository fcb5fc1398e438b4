/*
 * A subroutine's result used directly as an aggregation key is a key like
 * any other: each distinct value is its own row, as if it had been
 * assigned to a variable first.
 */
#pragma D option quiet

BEGIN
{
	@a[strlen("abc")] = count();
	@b[substr("hello", 0, 2)] = count();
	@b[substr("hello", 1, 2)] = count();
	@b[substr("hello", 1, 2)] = count();
	@c[strlen("ab"), 5] = count();
	@d[strjoin("a", "b"), strlen("xyz")] = sum(2);
	printa("%d %@d\n", @a);
	printa("%s %@d\n", @b);
	printa("%d %d %@d\n", @c);
	printa("%s %d %@d\n", @d);
	exit(0);
}
