/* Default output: FUNCTION:NAME column, trace() of integers and strings. */

BEGIN
{
	trace(42);
	trace("hello");
}

BEGIN
{
	printf("%d", 7);
}

BEGIN
{
	exit(0);
}
