/* A control line must end with a newline. */
BEGIN
{
	exit(0);
}
#pragma D option quiet