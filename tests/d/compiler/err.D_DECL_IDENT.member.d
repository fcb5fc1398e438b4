/* The same rule in a struct member's declaration (dtrace's D_DECL_IDENT;
   machtrace said D_SYNTAX). */
struct s {
	int uint32_t count;
};

BEGIN
{
	exit(0);
}
