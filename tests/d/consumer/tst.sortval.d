/* Default order: by value, ties broken by key. */
#pragma D option quiet

BEGIN
{
	@["c"] = sum(5);
	@["a"] = sum(5);
	@["b"] = sum(1);
	@["d"] = sum(-4);
	exit(0);
}
