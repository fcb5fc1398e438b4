/* Dynamic variable space exhausted: dynamic variable drops. */
/* @@runtest-opts: -xdroptags -xdynvarsize=64 */
/* @@stderr-match: ^dtrace: \[DTRACEDROP_DYNAMIC\] [0-9]* dynamic variable drops*$ */
#pragma D option quiet

tick-1ms
{
	a[i++] = 1;
}

tick-200ms
{
	exit(0);
}
