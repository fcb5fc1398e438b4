/*
 * strsize must leave room for one character and the terminating NUL:
 * dtrace rejects -xstrsize=1 (2 is the smallest accepted value).
 */
/* @@runtest-opts: -xstrsize=1 */

BEGIN
{
	exit(0);
}
