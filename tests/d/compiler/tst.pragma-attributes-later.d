/*
 * @@runtest-opts: -q
 * #pragma attributes may name a global the program declares after it
 * (dtrace keeps it pending until then); machtrace said "unused".
 */
#pragma D attributes Evolving/Evolving/Common later

int later;

BEGIN
{
	later = 7;
	printf("%d\n", later);
	exit(0);
}
