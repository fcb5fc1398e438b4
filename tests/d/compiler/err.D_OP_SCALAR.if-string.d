/* An if condition must be scalar, as the operand of dtrace's (1 && cond). */
BEGIN
{
	if ("abc")
		trace(1);
}
