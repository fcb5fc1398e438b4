/*
 * A clause with several probe descriptions runs once for each description
 * that matches, even when they name the same probe.
 */
#pragma D option quiet

BEGIN, dtrace:::BEGIN, :::BEGIN
{
	n++;
}

BEGIN
{
	printf("%d\n", n);
	exit(0);
}
