/*
 * @@runtest-opts: -q
 * A binding applies to the identifier declared after it.
 */
#pragma D binding "1.0" answer
inline int answer = 42;

BEGIN
{
	printf("%d\n", answer);
	exit(0);
}
