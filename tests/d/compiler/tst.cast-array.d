/*
 * @@runtest-opts: -q
 * What an array may be cast to: a pointer, and the same array type.
 */
int a[5];

BEGIN
{
	a[1] = 7;
	printf("%d %d\n", ((int *)a)[1], ((int [5])a)[1]);
	exit(0);
}
