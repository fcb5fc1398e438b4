/* aggsortkey and aggsortrev: keys in descending order. */
#pragma D option quiet
#pragma D option aggsortkey
#pragma D option aggsortrev

BEGIN
{
	@[2] = sum(10);
	@[3] = sum(30);
	@[1] = sum(20);
	exit(0);
}
