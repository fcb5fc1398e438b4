/* printf() conversions, flags, widths and precisions. */
#pragma D option quiet

BEGIN
{
	printf("[%d] [%i] [%u] [%o] [%x] [%X]\n", -42, 42, 42, 8, 255, 255);
	printf("[%5d] [%-5d] [%05d] [%+d] [% d]\n", 42, 42, 42, 42, 42);
	printf("[%s] [%10s] [%-10s] [%.3s]\n", "abc", "abc", "abc", "abcdef");
	printf("[%c] [%%] [%lld]\n", 65, 1234567890123LL);
	printf("[%*d] [%-*d] [%.*s]\n", 4, 7, 4, 7, 2, "xyz");
	printf("[%u] [%x]\n", -1, (char)-1);
	exit(0);
}
