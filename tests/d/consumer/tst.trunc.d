/* trunc(@, n) keeps the n largest entries; trunc(@) empties. */
#pragma D option quiet

BEGIN
{
	@a[1] = sum(10); @a[2] = sum(40); @a[3] = sum(30); @a[4] = sum(20);
	@b[1] = sum(1);
	trunc(@a, 2);
	trunc(@b);
	printa(@a);
	printa(@b);
	exit(0);
}
