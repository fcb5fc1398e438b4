/*
 * printa() with several aggregations joins them on their keys, so they
 * must have as many keys each; the message names both and their counts
 * in dtrace's words.
 * @@stderr-match: printa( ): @two and @one do not have matching key signatures: @two has 2 keys, @one has 1 key$
 */
BEGIN
{
	@two[1, "a"] = count();
	@one[1] = sum(3);
	printa(@two, @one);
	exit(0);
}
