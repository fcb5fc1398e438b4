/* A bad load reports dtrace's runtime error line; the exit status holds. */
/* @@stderr-match: ^dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): invalid address (0x8) at DIF offset [0-9]*$ */
#pragma D option quiet

BEGIN
{
	trace(*(int *)8);
}

BEGIN
{
	exit(0);
}
