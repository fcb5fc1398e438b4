/*
 * The statements name a variable nothing created yet, so the predicate is
 * cooked first and its own error is the one reported.
 */
BEGIN
/1 / 0/
{
	trace(x);
}
