/*
 * A run-time index into a declared array is checked against the array's
 * size: an index past the end, or a negative one, stops the clause with
 * DTRACEFLT_BADINDEX (arg4) and the index (arg5) instead of reading or
 * writing whatever lies beyond the array.
 * @@stderr-match: index out of bounds (-1)
 */
#pragma D option quiet

int a[4];

BEGIN
{
	i = 3;
	a[i] = 33;
	printf("a[3] = %d\n", a[i]);
	i = 4;
	a[i] = 44;
	printf("not reached\n");
}

ERROR
/arg4 == DTRACEFLT_BADINDEX && arg5 == 4 && !seen/
{
	seen = 1;
	printf("store a[%d] refused\n", arg5);
}

BEGIN
{
	j = -1;
	trace(a[j]);
	printf("not reached either\n");
}

ERROR
/arg4 == DTRACEFLT_BADINDEX && arg5 == -1 && seen/
{
	printf("load a[%d] refused\n", arg5);
	exit(0);
}

tick-1s
{
	printf("no BADINDEX fault for one of the two indices\n");
	exit(1);
}
