/*
 * @@runtest-opts: -q
 * The rows dtrace's dt_print_quantize()/dt_print_lquantize() print around
 * the first and last non-zero buckets: one zero row on each side, none
 * past the underflow or overflow bucket; a quantize() whose only data is
 * in its last bucket (>= 2^62) counts as empty there (its search for the
 * first non-zero bucket stops short of the last), so the rows around 0
 * are printed; all-zero data (increments that cancel) prints the rows
 * around 0 (quantize) or the first three (lquantize).
 */
BEGIN
{
	@last = quantize(1LL << 62);
	@under = quantize(-(1LL << 62) - 5);
	@both = quantize(3, 2);
	@both = quantize(1LL << 62, 1);
	@cancel = quantize(5, 1);
	@cancel = quantize(5, -1);
	@lover = lquantize(100, 0, 10, 1);
	@lunder = lquantize(-5, 0, 10, 1);
	@lcancel = lquantize(1, 0, 10, 1, 1);
	@lcancel = lquantize(1, 0, 10, 1, -1);
	exit(0);
}

END
{
	printa("last%@d\n", @last);
	printa("under%@d\n", @under);
	printa("both%@d\n", @both);
	printa("cancel%@d\n", @cancel);
	printa("lover%@d\n", @lover);
	printa("lunder%@d\n", @lunder);
	printa("lcancel%@d\n", @lcancel);
}
