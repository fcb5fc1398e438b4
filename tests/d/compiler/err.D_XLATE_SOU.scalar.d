/*
 * A translator's output type must be a struct or union, and dtrace says
 * so in those words for a scalar output type.
 * @@stderr-match: translator output type must be a struct or union$
 */
translator long < int x > {
	v = x;
};

BEGIN
{
	exit(0);
}
