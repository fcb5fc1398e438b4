/*
 * @@runtest-opts: extra
 * Every $N argument given must be referenced; that is checked after the
 * parse and before any clause is cooked (dtrace's dt_compile), so it is
 * reported rather than the clause's operand-type error.
 */
BEGIN
{
	x = "a";
	x = 1;
}
