/* #pragma D depends_on bogus x is dtrace's D_PRAGMA_INVAL (dt_pragma.c). */
#pragma D depends_on bogus x

BEGIN
{
	exit(0);
}
