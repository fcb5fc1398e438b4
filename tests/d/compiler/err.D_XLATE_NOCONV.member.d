/*
 * A translated struct has only the members its translator converts:
 * asking for another member of the output type is an error, not a zero.
 * @@stderr-match: translator does not define conversion for member: total$
 */
struct src { int used; };
struct view { int used; int total; };

translator struct view < struct src *s > {
	used = s->used;
};

BEGIN
{
	trace(xlate<struct view>((struct src *)0).total);
	exit(0);
}
