/*
 * A store into an element of a global array copies the whole array
 * through scratch space: one far larger than scratch used to compile and
 * then fail every store with "out of scratch space" (issue 7 item 16).
 * It is refused at compile time; -x scratchsize makes room for it.
 */
int a[100000];

BEGIN
{
	a[5] = 3;
	trace(a[5]);
	exit(0);
}
