/* strtok() keeps its position across calls made with a NULL string. */
#pragma D option quiet

BEGIN
{
	s = "one,two;;three,";
	printf("%s|", strtok(s, ",;"));
	printf("%s|", strtok(NULL, ",;"));
	printf("%s|", strtok(NULL, ",;"));
	printf("%s\n", strtok(NULL, ",;") == NULL ? "end" : "more");
	printf("%s\n", strtok("", ",") == NULL ? "empty" : "token");
	exit(0);
}

ERROR
{
	exit(1);
}
