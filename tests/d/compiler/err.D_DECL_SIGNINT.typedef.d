/*
 * A typedef name is not an integer type to sign, even when it names one:
 * dtrace checks the declaration's kind (typedef), not what it resolves to.
 */
typedef int myint_t;
signed myint_t x;

BEGIN
{
	exit(0);
}
