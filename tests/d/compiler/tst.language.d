/* A tour of the language: types, translators, strings, arithmetic. */
#pragma D option quiet
struct in_s { int a; };
struct out_s { int x; int y; };
translator struct out_s < struct in_s *p > { x = p->a * 2; y = 7; };
struct foo { int a; short b[4]; unsigned int bf : 3; };
struct foo g;
enum color { RED = 1, GREEN, BLUE };
inline int TWO = 2;

BEGIN
{
	this->p = (struct in_s *)alloca(sizeof(struct in_s));
	this->p->a = 4;
	printf("%d %d\n", xlate<struct out_s *>(this->p)->x,
	    xlate<struct out_s>(this->p).y);
	g.a = 5; g.b[2] = 7; g.bf = 13;
	printf("%d %d %d %d\n", g.a, g.b[2], g.bf, offsetof(struct foo, b));
	x[1, "a"] = GREEN * TWO;
	s = strjoin("foo", "bar");
	printf("%d %s %d %s %s\n", x[1, "a"], s, strlen(s), substr(s, 1, 3),
	    toupper(s));
	printf("%d %d %d\n", s == "foobar", 19 / 5, (char)300);
	i = 0; i++; i += 3; i <<= 2; i |= 1;
	printf("%d %s\n", i, i > 10 ? "big" : "small");
	exit(0);
}
