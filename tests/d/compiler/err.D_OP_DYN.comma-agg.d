/* The comma operator may not evaluate an aggregation either. */
BEGIN
{
	@a = count();
	trace((@a, 1));
}
