/*
 * @@runtest-opts: -q
 * A type name after a complete type, alone, names the variable (dtrace's
 * dt_decl_spec): this declares an int called uint64_t.
 */
int uint64_t;

BEGIN
{
	uint64_t = -1;
	printf("%d\n", uint64_t);
	exit(0);
}
