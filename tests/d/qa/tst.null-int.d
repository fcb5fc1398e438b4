/* NULL is an int-sized 0 that still compares with strings and pointers. */
#pragma D option quiet

BEGIN
{
	s = NULL;
	p = (char *)NULL;
	printf("%d %d %d %d\n", sizeof (NULL), NULL, s == NULL, p == NULL);
	exit(0);
}
