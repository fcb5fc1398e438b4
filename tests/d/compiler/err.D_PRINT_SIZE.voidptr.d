/*
 * print( ) of a pointer prints what it points to: a void pointer points to
 * nothing of any size (dtrace's dt_cg_act_print).
 * @@stderr-match: print( ) argument #1 reference has type 'void' with size 0; cannot print( ) it\.$
 */
BEGIN
{
	print((void *)0);
	exit(0);
}
