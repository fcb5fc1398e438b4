/* #pragma D binding "1.0" is dtrace's D_PRAGMA_MALFORM (dt_pragma.c). */
#pragma D binding "1.0"

BEGIN
{
	exit(0);
}
