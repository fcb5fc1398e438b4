/* #pragma D error stops the compilation with the words it is given. */
#pragma D error "stop" here

BEGIN
{
	exit(0);
}
