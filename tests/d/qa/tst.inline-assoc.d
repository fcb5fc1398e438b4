/* Inlines: constants, expressions, associative forms and translators. */
#pragma D option quiet

struct pair {
	int	lo;
	int	hi;
};

translator struct pair < int v > {
	lo = v & 0xff;
	hi = v >> 8;
};

inline int base = 40 + 2;
inline int twice[int n] = n * 2;
inline int mix[int a, int b] = a * 10 + b;
inline struct pair split = xlate < struct pair > (0x1234);

BEGIN
{
	printf("%d %d %d %x %x\n", base, twice[base], mix[3, 4], split.lo,
	    split.hi);
	exit(0);
}
