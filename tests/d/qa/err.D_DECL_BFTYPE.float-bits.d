/* Bit-fields must have an integer type. */
struct flags {
	double	ratio : 3;
};

BEGIN
{
	exit(0);
}
