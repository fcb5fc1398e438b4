/* The DTRACEFLT_* fault codes are predefined and match the ERROR args. */
/* @@stderr-match: divide-by-zero */
#pragma D option quiet

BEGIN
{
	zero = 0;
	x = 10 / zero;
}

ERROR
{
	exit(arg4 == DTRACEFLT_DIVZERO && DTRACEFLT_BADADDR == 1 &&
	    DTRACEFLT_UNKNOWN == 0 ? 0 : 1);
}
