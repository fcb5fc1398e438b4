/* Adding a string to an integer variable is a type error. */
BEGIN
{
	i = 1;
	i += "s";
}
