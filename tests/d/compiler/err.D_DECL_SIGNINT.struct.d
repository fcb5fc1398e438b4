/* signed and unsigned apply to integer types only, not to a struct. */
struct point {
	int x;
};

unsigned struct point p;

BEGIN
{
	exit(0);
}
