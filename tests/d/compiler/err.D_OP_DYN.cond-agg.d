/* An aggregation has no value in an expression: ?: may not choose one. */
BEGIN
{
	@a = count();
	@b = count();
	trace(timestamp ? @a : @b);
}
