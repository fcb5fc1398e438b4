/* Speculations: committed records appear after the committing clause's
   own record; discarded ones never. */
#pragma D option quiet
#pragma D option nspec=2

BEGIN
{
	a = speculation();
	b = speculation();
}

BEGIN
{
	speculate(a);
	printf("kept %d\n", a);
}

BEGIN
{
	speculate(b);
	printf("dropped %d\n", b);
}

BEGIN
{
	printf("before commit\n");
}

BEGIN
{
	commit(a);
	discard(b);
}

BEGIN
{
	exit(0);
}
