/* The smallest strsize keeps one character of every string. */
/* @@runtest-opts: -q -xstrsize=2 */

BEGIN
{
	printf("[%s]\n", "machtrace");
	exit(0);
}
