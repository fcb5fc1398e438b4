/*
 * A bad load fires ERROR with dtrace's arguments: arg4 the fault
 * (1 = invalid address), arg5 the address; the consumer reports it.
 */
/* @@stderr-match: invalid address (0x8) */
#pragma D option quiet

BEGIN
{
	x = *(int *)8;
}

ERROR
{
	exit(arg4 == 1 && arg5 == 8 ? 0 : 1);
}
