/*
 * @@runtest-opts: -q
 * #pragma binding may name an identifier the program declared before it
 * (or one it declares after it); attributes one declared before it.
 */
inline int answer = 42;
#pragma D binding "1.0" answer
#pragma D binding "1.0" later

int later;
#pragma D attributes Evolving/Evolving/Common later

BEGIN
{
	later = answer;
	printf("%d\n", later);
	exit(0);
}
