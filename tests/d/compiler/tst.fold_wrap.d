/*
 * @@runtest-opts: -q
 * 64-bit arithmetic wraps as the DIF machine computes it, both when the
 * compiler folds constants and at run time (no C undefined behaviour: the
 * sanitizer pass of make check runs this too), and a long \x escape keeps
 * its low byte.
 */
BEGIN
{
	printf("%d\n", -9223372036854775807 - 1 - 1);
	printf("%d\n", -(-9223372036854775807 - 1));
	printf("%d\n", (-9223372036854775807 - 1) / -1);
	printf("%d\n", (-9223372036854775807 - 1) % -1);
	printf("%d\n", 9223372036854775807 + 1);
	printf("%d\n", 0x7fffffffffffffff * 3);
	printf("%s\n", "\x123456789abcdef41");
	x = -9223372036854775807 - 1;
	y = -1;
	printf("%d %d %d %d\n", x - 1, -x, x / y, x % y);
	printf("%d %d\n", x + x, x * 3);
	exit(0);
}
