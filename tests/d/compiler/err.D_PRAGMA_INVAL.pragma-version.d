/* #pragma D binding "x.y" foo is dtrace's D_PRAGMA_INVAL (dt_pragma.c). */
#pragma D binding "x.y" foo

BEGIN
{
	exit(0);
}
