/*
 * Structs declared in D are laid out as dtrace lays them out: a bit-field
 * is an integer just wide enough for its bits (1, 2, 4 or 8 bytes), each
 * member starts at the byte after the previous one ends, rounded up to
 * its alignment, an unnamed :0 field is ignored, and nothing pads the end.
 * Values stored in neighbouring bit-fields stay apart and keep their sign.
 */
#pragma D option quiet

struct one { int a : 1; } s1;
struct two { int a : 1; int b : 3; } s2;
struct mixed { int c : 12; int a : 10; int b : 3; } s3;
struct wide { int a : 20; int b : 3; int c : 12; } s4;
struct longs { long c : 32; long long d : 9; int e : 1; } s5;
struct zero { unsigned a : 1; unsigned : 0; unsigned b : 1; } s6;
struct tail { int a; char b; } s7;
union bits { int a : 3; char b : 5; } s8;

BEGIN
{
	printf("%d %d %d %d %d %d %d %d\n", sizeof (s1), sizeof (s2),
	    sizeof (s3), sizeof (s4), sizeof (s5), sizeof (s6), sizeof (s7),
	    sizeof (s8));
	printf("%d\n", offsetof(struct tail, b));
	s4.a = 0x7ffff;
	s4.b = 5;
	s4.c = -3;
	printf("%d %d %d\n", s4.a, s4.b, s4.c);
	s5.c = 0x7fffffff;
	s5.d = 255;
	s5.e = 1;
	printf("%d %d %d\n", s5.c, s5.d, s5.e);
	exit(0);
}
