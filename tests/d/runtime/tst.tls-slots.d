/*
 * Scalar thread-locals (a row per thread, runtime/tls.c) next to
 * by-reference ones and thread-local associative arrays (dynamic
 * variables): loads before stores, stores of 0 as deletes, increments,
 * negative and pointer values, values kept across probes, and many
 * variables in a tiny dynvarsize (one row holds them all).
 */
#pragma D option quiet
#pragma D option dynvarsize=1k

self int a, i;
self char c;

BEGIN
{
	printf("unset %d %d\n", self->a, self->i);
	self->a = 1;
	self->b = -2;
	self->c = 300;
	self->i = 0x7fffffff;
	self->p = (int *)0x1000;
	self->s = "str";
	self->m[1, "k"] = 5;
	self->a++;
	++self->b;
	self->i += 1;
	printf("set %d %d %d %d %s %d %p\n", self->a, self->b, self->c,
	    self->i, self->s, self->m[1, "k"], self->p);
	self->a = 0;
	printf("deleted %d %d\n", self->a, self->b);
	self->a = 7;
	printf("again %d\n", self->a);
	self->v01 = 1; self->v02 = 2; self->v03 = 3; self->v04 = 4;
	self->v05 = 5; self->v06 = 6; self->v07 = 7; self->v08 = 8;
	self->v09 = 9; self->v10 = 10; self->v11 = 11; self->v12 = 12;
}

tick-1ms
/self->a == 7/
{
	printf("tick %d %d\n", self->a, self->v01 + self->v02 + self->v03 +
	    self->v04 + self->v05 + self->v06 + self->v07 + self->v08 +
	    self->v09 + self->v10 + self->v11 + self->v12);
	self->a = 0;
	self->b = 0;
	self->c = 0;
	self->i = 0;
	self->p = 0;
	self->s = 0;
	self->m[1, "k"] = 0;
	self->v01 = 0; self->v02 = 0; self->v03 = 0; self->v04 = 0;
	self->v05 = 0; self->v06 = 0; self->v07 = 0; self->v08 = 0;
	self->v09 = 0; self->v10 = 0; self->v11 = 0; self->v12 = 0;
	self->done = 1;
}

tick-1ms
/self->done/
{
	printf("all deleted %d %d %d %d %d %d\n", self->a, self->b, self->c,
	    self->i, self->v12, self->m[1, "k"]);
	exit(0);
}

END
{
	printf("drops none\n");
}
