/* An aggregation buffer too small for every key: aggregation drops. */
/* @@runtest-opts: -xaggsize=100 */
/* @@stderr-match: ^dtrace: [0-9]* aggregation drops* on CPU 0$ */
#pragma D option quiet

BEGIN
{
	@[1] = count(); @[2] = count(); @[3] = count(); @[4] = count();
	@[5] = count(); @[6] = count(); @[7] = count(); @[8] = count();
	exit(0);
}
