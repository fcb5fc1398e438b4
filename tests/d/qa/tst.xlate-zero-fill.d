/*
 * Copying a whole translated struct fills the members the translator does
 * not define with zeroes; translating one member evaluates only that one.
 */
#pragma D option quiet

struct src {
	int	a;
	char	b;
};

struct dst {
	int	x;
	char	y;
	long	z;
};

translator struct dst < struct src s >
{
	x = s.a * 2;
};

struct src in;
struct dst out;

BEGIN
{
	in.a = 21;
	in.b = 'q';
	out.y = 7;
	out = xlate < struct dst > (in);
	printf("%d %d %d %d\n", out.x, out.y, out.z, xlate < struct dst > (in).x);
	exit(0);
}
