/*
 * ustack() with 0, 1 and 2 arguments, ufunc(), usym(), umod(), uaddr()
 * and %A type-check, as actions, printf arguments and aggregation keys.
 * The local target has no user stacks or user symbols: empty stacks and
 * hex addresses.
 */
#pragma D option quiet
BEGIN
{
	ustack();
	ustack(5);
	ustack(5, 100);
	ufunc(1);
	usym(2);
	umod(3);
	uaddr(4);
	printf("%A|\n", 5);
	@[ustack(3), ufunc(6), umod(7), uaddr(8), usym(9)] = count();
	exit(0);
}
