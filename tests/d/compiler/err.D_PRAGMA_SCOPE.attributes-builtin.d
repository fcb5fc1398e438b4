/* #pragma D attributes may not change a built-in variable's attributes
   (dtrace's dt_pragma_attributes: D_PRAGMA_SCOPE); it said "unused". */
#pragma D attributes Stable/Stable/Common timestamp

BEGIN
{
	exit(0);
}
