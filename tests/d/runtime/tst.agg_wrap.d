/*
 * @@runtest-opts: -q
 * Aggregation values wrap in 64 bits as dtrace's do, with no C undefined
 * behaviour in the runtime (the sanitizer pass of make check runs this):
 * sums past INT64_MAX, quantize/lquantize increments past it, and an
 * lquantize value whose distance from a negative base exceeds INT64_MAX.
 * The distributions themselves are not printed (trunc): only the updates
 * matter here.
 */
BEGIN
{
	@s = sum(9223372036854775807);
	@s = sum(1);
	@a = avg(9223372036854775807);
	@a = avg(9223372036854775807);
	@q = quantize(1, 9223372036854775807);
	@q = quantize(1, 1);
	@l = lquantize(9223372036854775807, -10, 10, 5);
	@l = lquantize(9223372036854775807, -10, 10, 5, 9223372036854775807);
	exit(0);
}

END
{
	printa("sum %@d\n", @s);
	printa("avg %@d\n", @a);
	trunc(@q);
	trunc(@l);
}
