/*
 * @@runtest-opts: -q
 * @@stderr-match: invalid address
 * bcopy() checks as dtrace-utils does: a copy that would run past the
 * alloca'd destination is an invalid address (the destination's), not an
 * invalid size; a size beyond scratchsize is an invalid size (the size);
 * a copy into an alloca'd buffer that fits works.  ERROR checks each
 * fault's kind and value and exits 0 only when all three held.
 */
BEGIN
{
	ok = 0;
	x = (char *)alloca(8);
	bcopy("abcdefg", x, 8);
	ok += stringof(x) == "abcdefg";
	step = 1;
	y = (char *)alloca(8);
	bcopy("abcdefghijklmnopqrstuvw", y, 24);
}

/* DTRACEFLT_BADADDR is 1, DTRACEFLT_BADSIZE 10 */
ERROR
/step == 1/
{
	ok += arg4 == 1 && arg5 == (uint64_t)y;
	step = 2;
}

tick-1ms
/step == 2/
{
	step = 3;
	z = (char *)alloca(8);
	bcopy("abc", z, 9000);
}

ERROR
/step == 3/
{
	ok += arg4 == 10 && arg5 == 9000;
	exit(ok == 3 ? 0 : 1);
}

tick-1s
{
	exit(1);
}
