/* print() of a struct: members by name and type, zero members left out. */
#pragma D option quiet

struct point {
	int	x;
	int	y;
	char	tag[4];
	long	z;
};

struct point p;

BEGIN
{
	p.x = 3;
	p.y = 0;
	p.tag[0] = 'a';
	p.tag[1] = 'b';
	p.z = -7;
	print(p);
	exit(0);
}
