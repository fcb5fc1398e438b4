/* The attributes of a provider machtrace does not have wait, as dtrace's,
   for an identifier of its name, which never comes. */
#pragma D attributes Stable/Stable/Common provider nosuch name

BEGIN
{
	exit(0);
}
