/* A predicate may create the variable the actions use (cooked first). */
#pragma D option quiet
BEGIN
/x++ == 0/
{
	printf("%d\n", x);
	exit(0);
}
