/* A type name after a complete type is the declarator's name (dtrace's
   dt_decl_spec), so x is a second one: "old-style declaration or
   incorrect type specified"; machtrace said D_SYNTAX. */
int uint64_t x;

BEGIN
{
	exit(0);
}
