/* A member that is not a struct or union needs a name: dtrace's grammar
   has no unnamed member declarator (D_DECL_MNAME is never reached). */
struct s {
	int;
	int b;
};

BEGIN
{
	exit(0);
}
