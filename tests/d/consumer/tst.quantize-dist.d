/* A distribution spanning zero, several powers of two and a gap. */
#pragma D option quiet

BEGIN
{
	@q = quantize(-1);
	@q = quantize(0);
	@q = quantize(1);
	@q = quantize(1);
	@q = quantize(5);
	@q = quantize(100, 3);
	exit(0);
}
