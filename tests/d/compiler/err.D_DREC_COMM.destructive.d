/*
 * @@runtest-opts: -w
 * A destructive action records data too: it may not follow commit( ).
 */
BEGIN
{
	s = speculation();
}

BEGIN
{
	commit(s);
	raise(0);
}
