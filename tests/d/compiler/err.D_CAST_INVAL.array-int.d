/* Nor is an array a scalar to cast to an integer. */
int a[5];

BEGIN
{
	trace((long)a);
	exit(0);
}
