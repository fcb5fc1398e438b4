/*
 * @@runtest-opts: -q
 * stringof() of an alloca()'d pointer reads a string as dtrace-utils
 * bounds it: strsize bytes from the pointer must be allocated scratch,
 * NUL or not, else the clause faults "invalid size".  A full 256-byte
 * buffer with no NUL gives its first strsize bytes, so does one of exactly
 * strsize bytes; an 8-byte one and a pointer 1 byte into the latter fault.  (It faulted "invalid address" at the
 * end of the 8 bytes, and read short buffers that held a NUL.)
 */
#pragma D option scratchsize=512
#pragma D option strsize=16

BEGIN
{
	p = (char *)alloca(8);
	bcopy("abcdefg", p, 8);
	printf("short: %s\n", stringof(p));
}

BEGIN
{
	q = (char *)alloca(256);
	bcopy("abcdefghijklmnopqrstuvwxyz", q, 26);
	printf("full: %s\n", stringof(q));
}

BEGIN
{
	q = (char *)alloca(16);
	bcopy("abcdefghijklmnopqrstuvwxyz", q, 16);
	printf("exact: %s\n", stringof(q));
}

BEGIN
{
	q = (char *)alloca(16);
	bcopy("abcdefghijklmnopqrstuvwxyz", q, 16);
	printf("inside: %s\n", stringof(q + 1));
}

BEGIN
{
	exit(0);
}
