/*
 * String comparisons and lengths across 8-byte words (the runtime finds
 * the NUL and compares a word at a time): a prefix sorts first, the
 * difference may be in any byte of any word, and thread-local and
 * aggregation keys of such strings stay distinct.
 */
#pragma D option quiet
BEGIN
{
	a = "abcdefgh";
	b = "abcdefghi";
	c = "abcdefgi";
	printf("%d %d %d %d %d %d\n", a < b, b > a, a == "abcdefgh", a < c,
	    "abcdefghijklmnop" > "abcdefghijklmno", "" < "a");
	printf("%d %d %d %d\n", strlen(a), strlen(b), strlen(""),
	    strlen("abcdefghijklmnopqrstuvw"));
	self->x = 1;
	self->y = 2;
	@[a] = count();
	@[b] = count();
	@[a] = count();
	@[c] = count();
	printf("%d %d\n", self->x, self->y);
	self->x = 0;
	printf("%d %d\n", self->x, self->y);
	printa("%s %@d\n", @);
	exit(0);
}
