/* A second tuple signature is an array of associative arrays too. */
int a[int][int];

BEGIN
{
	exit(0);
}
