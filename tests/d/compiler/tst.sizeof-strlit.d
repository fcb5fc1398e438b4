/*
 * @@runtest-opts: -q
 * sizeof of a string literal is its length plus the NUL (dtrace's
 * dt_node_type_size); a string-typed expression is strsize bytes.
 */
#pragma D option strsize=32

BEGIN
{
	printf("%d %d %d %d\n", sizeof "hi", sizeof (""), sizeof "a\0b",
	    sizeof execname);
	exit(0);
}
