/* A branch without braces is a statement: it needs its semicolon. */
BEGIN
{
	if (1)
		trace(1)
}
