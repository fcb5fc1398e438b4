/*
 * A string subroutine's parameter is printed as dtrace prints it: its
 * prototype says "const char *", the message says "char *".
 * @@stderr-match: ^	prototype: char \*$
 */
BEGIN
{
	trace(strlen(1));
}
