/*
 * @@runtest-opts: -q
 * Declarations, inlines and translators after a clause apply to it: the
 * clause is cooked once the whole program is parsed (dtrace's order).
 */
BEGIN
{
	x = 1;
	y = 2;
	printf("%d %d %d %d\n", x, y, three, xlate<struct pair>(7).b);
	exit(0);
}

int x;
typedef long mylong;
mylong y;
inline int three = 3;
struct pair { int a; int b; };
translator struct pair < int i > { a = i; b = i * 2; };
