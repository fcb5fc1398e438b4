/* %z is not a printf size prefix in D: it names no conversion. */
BEGIN
{
	printf("%zd\n", 1);
	exit(0);
}
