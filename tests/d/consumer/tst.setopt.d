/* setopt() at run time: quiet turned on, a bad option reported. */

BEGIN
{
	trace("before");
}

BEGIN
{
	setopt("quiet");
	setopt("nosuchoption");
	printf("after\n");
	exit(0);
}
