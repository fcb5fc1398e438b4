/* After exit() only END's clauses produce output. */
#pragma D option quiet

BEGIN
{
	exit(0);
}

BEGIN
{
	printf("not shown\n");
}

END
{
	printf("end\n");
}
