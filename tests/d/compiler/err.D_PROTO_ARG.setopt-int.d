/*
 * setopt()'s option name is a string: "char *" in the message, as dtrace.
 * @@stderr-match: ^	prototype: char \*$
 */
BEGIN
{
	setopt(1);
}
