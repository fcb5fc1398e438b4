/*
 * A program may not declare a typedef twice, even as the same type: dtrace
 * refuses any name its D container already holds (dt_node_decl).
 */
typedef int myint_t;
typedef int myint_t;

BEGIN
{
	exit(0);
}
