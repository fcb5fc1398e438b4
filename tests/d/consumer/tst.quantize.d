/* The issue's acceptance check: one quantize() bucket, printed at exit. */
#pragma D option quiet

BEGIN
{
	@[1] = quantize(7);
	exit(0);
}
