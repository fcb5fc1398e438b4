/* lquantize(): below the base, in range, at or above the limit. */
#pragma D option quiet

BEGIN
{
	@l["a"] = lquantize(-5, 0, 50, 10);
	@l["a"] = lquantize(12, 0, 50, 10);
	@l["a"] = lquantize(19, 0, 50, 10);
	@l["b"] = lquantize(50, 0, 50, 10);
	@l["b"] = lquantize(1000, 0, 50, 10);
	exit(0);
}
