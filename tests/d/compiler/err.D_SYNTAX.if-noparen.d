/* The condition of an if needs parentheses. */
BEGIN
{
	if 1
		trace(1);
}
