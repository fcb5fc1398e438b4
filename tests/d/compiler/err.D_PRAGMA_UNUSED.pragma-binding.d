/* #pragma D binding "1.0" foo is dtrace's D_PRAGMA_UNUSED (dt_pragma.c). */
#pragma D binding "1.0" foo

BEGIN
{
	exit(0);
}
