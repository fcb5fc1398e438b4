/* A #pragma D option names exactly one option. */
#pragma D option quiet flowindent

BEGIN
{
	exit(0);
}
