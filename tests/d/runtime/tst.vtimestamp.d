/*
 * vtimestamp on the local target: the CPU time of machtrace's thread
 * (which fires every probe) less its time in probe context.  Between
 * ticks the thread waits: over 100 ms the virtual clock advances far less
 * than the wall clock, never backwards, and one firing reads one value.
 * tick-10ms's clauses run compiled unless MACHTRACE_NOJIT is set.
 */
#pragma D option quiet

uint64_t v0, t0, last;

BEGIN
{
	v0 = vtimestamp;
	t0 = timestamp;
	last = v0;
}

tick-10ms
{
	@back = sum(last > vtimestamp);
	last = vtimestamp;
}

tick-10ms
{
	@changed = sum(vtimestamp != last);
}

tick-100ms
{
	printf("%s\n", vtimestamp - v0 < (timestamp - t0) / 4 ?
	    "virtual < wall / 4" : "virtual >= wall / 4");
	printa("backwards %@d, changed within a firing %@d\n", @back, @changed);
	exit(0);
}
