/* commit( ) may not follow an aggregating action, which records data. */
BEGIN
{
	s = speculation();
}

BEGIN
{
	@ = count();
	commit(s);
}
