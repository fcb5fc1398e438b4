/*
 * More than ten tuple entries: dtrace's message, with no tag and no line.
 * @@runtest-opts: -xerrtags
 * @@stderr-match: \.d: Insufficient tuple registers to generate code$ */
BEGIN
{
	a[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] = 1;
}
