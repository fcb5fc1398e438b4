/*
 * @@runtest-opts: -q
 * A typedef D itself provides may be declared again as the same type.
 */
typedef unsigned int uint32_t;

BEGIN
{
	printf("%d\n", sizeof (uint32_t));
	exit(0);
}
