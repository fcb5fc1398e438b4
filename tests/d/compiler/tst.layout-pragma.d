/*
 * "#pragma machtrace layout c" (what mt-live decls puts before the
 * kernel's declarations) lays structs out as the C compiler does, so
 * pasted kernel types keep their offsets: bit-fields share a unit of
 * their type and the size is padded to the alignment.  dtrace itself
 * ignores the pragma.
 */
#pragma D option quiet
#pragma machtrace layout c

struct bits { int a : 1; int b : 3; } s1;
struct tail { int a; char b; } s2;

BEGIN
{
	printf("%d %d\n", sizeof (s1), sizeof (s2));
	s1.a = -1;
	s1.b = 3;
	printf("%d %d\n", s1.a, s1.b);
	exit(0);
}
