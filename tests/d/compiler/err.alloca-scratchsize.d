/*
 * A constant alloca() size is checked at compile time against the
 * scratch space a scratchsize option leaves for alloca() (the option's
 * value itself), whether the option comes from a pragma or -x.
 * @@stderr-match: line 12: alloca(65) size larger than scratchsize 64$
 */
#pragma D option scratchsize=64

BEGIN
{
	a = alloca(64);
	b = alloca(65);
	exit(0);
}
