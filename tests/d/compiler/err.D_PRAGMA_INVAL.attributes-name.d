/* Stability names are dtrace's (dtrace_str2attr): "Solid" is none of them;
   machtrace counted the slashes only. */
int x;
#pragma D attributes Solid/Stable/Common x

BEGIN
{
	exit(0);
}
