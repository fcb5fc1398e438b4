/* An undefined variable in an if condition. */
BEGIN
{
	if (nosuchvar > 1)
		trace(1);
}
