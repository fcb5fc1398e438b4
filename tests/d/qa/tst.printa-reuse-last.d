/*
 * printa(): once the aggregations are used up, further %@ conversions
 * keep formatting the last aggregation (as dtrace's dt_printf_format does).
 */
#pragma D option quiet

BEGIN
{
	@total = sum(5);
	@hits = count();
	printa("%@d %@d %@d %@d\n", @total, @hits);
	printa("[%@u|%@u]\n", @hits);
	exit(0);
}
