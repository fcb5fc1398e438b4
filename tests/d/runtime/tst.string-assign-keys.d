/*
 * Strings run to their NUL, not strsize: a string variable assigned a
 * shorter then a longer string, strings as associative array keys (of
 * different lengths, in tuples whose strings split alike), and a
 * thread-local string.
 */
#pragma D option quiet

BEGIN
{
	s = "a fairly long string of forty-two chars..";
	s = "short";
	printf("[%s] %d\n", s, strlen(s));
	s = strjoin(s, " and longer again");
	printf("[%s] %d\n", s, strlen(s));
	self->t = "thread-local, long enough to fill words";
	self->t = "tl";
	printf("[%s]\n", self->t);

	a["ab"] = 1;
	a["abc"] = 2;
	a["abcdefgh"] = 3;
	a["abcdefghi"] = 4;
	a[substr("xxabxx", 2, 2)] += 10;
	printf("%d %d %d %d\n", a["ab"], a["abc"], a["abcdefgh"], a["abcdefghi"]);
	b["a", "bc"] = 1;
	b["ab", "c"] = 2;
	b["abcdefgh", ""] = 3;
	b["", "abcdefgh"] = 4;
	printf("%d %d %d %d\n", b["a", "bc"], b["ab", "c"], b["abcdefgh", ""],
	    b["", "abcdefgh"]);
	c["k", 1] = 5;
	c["k", 2] = 6;
	c["kk", 1] = 7;
	printf("%d %d %d\n", c["k", 1], c["k", 2], c["kk", 1]);
	a["ab"] = 0;
	printf("%d %d\n", a["ab"], a["abc"]);
	exit(0);
}
