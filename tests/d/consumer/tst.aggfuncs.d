/* count, sum, avg, min, max, stddev as printed at exit. */
#pragma D option quiet

BEGIN
{
	@count = count(); @count = count(); @count = count();
	@sum = sum(10); @sum = sum(-3);
	@avg = avg(2); @avg = avg(4); @avg = avg(9);
	@min = min(5); @min = min(-2); @min = min(8);
	@max = max(5); @max = max(-2); @max = max(8);
	@sd = stddev(2); @sd = stddev(4); @sd = stddev(4); @sd = stddev(4);
	@sd = stddev(5); @sd = stddev(5); @sd = stddev(7); @sd = stddev(9);
	exit(0);
}
