/* Neither is an array: a predicate may not test one. */
int a[4];

BEGIN
/a/
{
	exit(0);
}
