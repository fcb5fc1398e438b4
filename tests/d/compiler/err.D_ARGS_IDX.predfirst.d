/*
 * A predicate cooked before the statements (they use the variable it
 * creates) leaves the clause's probes as they were: BEGIN has no args[].
 */
BEGIN
/(x = 1) == 1/
{
	trace(x);
	trace(args[0]);
}
