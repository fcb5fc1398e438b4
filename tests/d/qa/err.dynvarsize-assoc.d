/* An associative array must fit one element in dynvarsize. */
#pragma D option dynvarsize=16

BEGIN
{
	sizes[1] = 100;
	exit(0);
}
