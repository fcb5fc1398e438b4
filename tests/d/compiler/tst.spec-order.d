/*
 * @@runtest-opts: -q
 * What dtrace's clause rules allow: discard( ) records nothing and blocks
 * nothing, so speculate( ), data and another discard( ) may follow it;
 * discard( ) may follow data; commit( ) may follow commit( ).
 */
#pragma D option nspec=3
BEGIN
{
	a = speculation();
	b = speculation();
	c = speculation();
}

BEGIN
{
	discard(c);
	speculate(a);
	printf("in a\n");
}

BEGIN
{
	speculate(b);
	printf("in b\n");
	discard(b);
}

BEGIN
{
	printf("plain\n");
	discard(c);
	discard(c);
}

BEGIN
{
	commit(a);
	commit(a);
}

BEGIN
{
	exit(0);
}
