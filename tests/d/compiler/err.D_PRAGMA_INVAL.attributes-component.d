/* A provider's parts are provider, module, function, name and args
   (dtrace's dt_pragma_attributes). */
#pragma D attributes Stable/Stable/Common provider dtrace probe

BEGIN
{
	exit(0);
}
