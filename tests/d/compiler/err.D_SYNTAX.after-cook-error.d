/*
 * A syntax error anywhere in the program is reported before a semantic
 * error in an earlier clause: parsing ends before cooking starts.
 * @@stderr-match: line 13: syntax error near */
BEGIN
{
	x = "a";
	x = 1;
}

BEGIN
{
	x = ;
}
