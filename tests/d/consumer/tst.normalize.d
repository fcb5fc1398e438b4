/* normalize() and denormalize() change how values print. */
#pragma D option quiet

BEGIN
{
	@a["x"] = sum(1000);
	@a["y"] = sum(250);
	normalize(@a, 100);
	printa(@a);
	denormalize(@a);
	printa(@a);
	exit(0);
}
