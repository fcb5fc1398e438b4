/* tracemem() takes a pointer or an integer; a string is neither (dtrace's
   dt_node_is_pointer() is false for strings). */
BEGIN
{
	tracemem("hello", 4);
	exit(0);
}
