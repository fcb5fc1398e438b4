/*
 * A bit-field's type is an integer type: dtrace refuses an enum
 * (dt_decl_member asks for CTF_K_INTEGER).
 */
enum color { RED, GREEN };

struct s {
	enum color c : 2;
};

BEGIN
{
	exit(0);
}
