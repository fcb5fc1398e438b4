/*
 * @@runtest-opts: -q
 * #pragma binding and attributes may name an identifier the program
 * declared before them, and attributes one it declares after them.
 */
inline int answer = 42;
#pragma D binding "1.0" answer
#pragma D attributes Evolving/Evolving/Common later

int later;

BEGIN
{
	later = answer;
	printf("%d\n", later);
	exit(0);
}
