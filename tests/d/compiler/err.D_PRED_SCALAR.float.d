/* Nor is a floating-point value. */
float f;

BEGIN
/f/
{
	exit(0);
}
