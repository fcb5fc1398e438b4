/*
 * String subroutines in probe context (runtime/subr.c), edge cases as
 * dtrace defines them.
 */
#pragma D option quiet

BEGIN
{
	printf("[%s]\n", strjoin("foo", "bar"));
	printf("[%s] [%s] [%s]\n", substr("hello world", 6),
	    substr("hello world", -5), substr("hello", 1, -1));
	printf("%d %d %d %d\n", index("foobarbar", "bar"),
	    index("foobarbar", "bar", 4), rindex("foobarbar", "bar"),
	    index("foo", "x"));
	printf("[%s] [%s] [%s]\n", basename("/a/b/c/"), dirname("/a/b/c/"),
	    dirname("c"));
	printf("[%s] [%s]\n", cleanpath("/a//b/./c/../d/"), cleanpath("a/../.."));
	printf("[%s] [%s] [%s]\n", lltostr(-9223372036854775807 - 1),
	    toupper("MiXeD"), tolower("MiXeD"));
	printf("[%s] [%s]\n", strtok("a,b,,c", ","), strtok(NULL, ","));
	printf("[%s] [%s]\n", strstr("haystack", "st"), strchr("haystack", 'y'));
	printf("%d %d\n", strlen("haystack"), strtoll("-42"));
	exit(0);
}
