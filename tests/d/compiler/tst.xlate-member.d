/*
 * A reference to one member of a translation evaluates only that member's
 * translator expression (the one for "bad" would fault), and reads the
 * value the whole translation holds there: an int cut to a char, a
 * negative char widened to an unsigned int, a string, a char array (the
 * whole translation, copied to out, holds the same).
 */
#pragma D option quiet

struct dst {
	int	bad;
	char	narrow;
	uint32_t wide;
	string	name;
	char	tag[4];
	int	undefined;
};

translator struct dst < int x >
{
	bad = *(int *)0;
	narrow = x;
	wide = (char)-2;
	name = strjoin("n", lltostr(x));
	tag = lltostr(x);
};

translator struct dst < long x >
{
	narrow = x;
	wide = (char)-2;
	name = strjoin("n", lltostr(x));
	tag = lltostr(x);
};

int in;
struct dst out;
inline struct dst *cur = xlate < struct dst * > (in);

BEGIN
{
	in = 0x1ff;
	printf("%d %u %s %s %c\n", cur->narrow, cur->wide, cur->name,
	    stringof(cur->tag), cur->tag[1]);
	printf("%d %u %s %s\n", xlate < struct dst > ((long)in).narrow,
	    xlate < struct dst > ((long)in).wide,
	    xlate < struct dst > ((long)in).name,
	    stringof(xlate < struct dst > ((long)in).tag));
	out = xlate < struct dst > ((long)in);
	printf("%d %u %s %s %d\n", out.narrow, out.wide, out.name,
	    stringof(out.tag), out.undefined);
	@[cur->name, cur->narrow] = count();
	exit(0);
}
