/*
 * @@runtest-opts: -q
 * The string temporaries of trace() and printf() arguments are given back
 * once their record is written, as those of expression statements: 30
 * printf()s and 30 trace()s of strjoin(lltostr()) in one clause used to
 * fault "out of scratch space" at the 22nd.
 */
BEGIN
{
	printf("%s ", strjoin("p", lltostr(1)));
	printf("%s ", strjoin("p", lltostr(2)));
	printf("%s ", strjoin("p", lltostr(3)));
	printf("%s ", strjoin("p", lltostr(4)));
	printf("%s ", strjoin("p", lltostr(5)));
	printf("%s ", strjoin("p", lltostr(6)));
	printf("%s ", strjoin("p", lltostr(7)));
	printf("%s ", strjoin("p", lltostr(8)));
	printf("%s ", strjoin("p", lltostr(9)));
	printf("%s ", strjoin("p", lltostr(10)));
	printf("%s ", strjoin("p", lltostr(11)));
	printf("%s ", strjoin("p", lltostr(12)));
	printf("%s ", strjoin("p", lltostr(13)));
	printf("%s ", strjoin("p", lltostr(14)));
	printf("%s ", strjoin("p", lltostr(15)));
	printf("%s ", strjoin("p", lltostr(16)));
	printf("%s ", strjoin("p", lltostr(17)));
	printf("%s ", strjoin("p", lltostr(18)));
	printf("%s ", strjoin("p", lltostr(19)));
	printf("%s ", strjoin("p", lltostr(20)));
	printf("%s ", strjoin("p", lltostr(21)));
	printf("%s ", strjoin("p", lltostr(22)));
	printf("%s ", strjoin("p", lltostr(23)));
	printf("%s ", strjoin("p", lltostr(24)));
	printf("%s ", strjoin("p", lltostr(25)));
	printf("%s ", strjoin("p", lltostr(26)));
	printf("%s ", strjoin("p", lltostr(27)));
	printf("%s ", strjoin("p", lltostr(28)));
	printf("%s ", strjoin("p", lltostr(29)));
	printf("%s ", strjoin("p", lltostr(30)));
	trace(strjoin("t", lltostr(1)));
	trace(strjoin("t", lltostr(2)));
	trace(strjoin("t", lltostr(3)));
	trace(strjoin("t", lltostr(4)));
	trace(strjoin("t", lltostr(5)));
	trace(strjoin("t", lltostr(6)));
	trace(strjoin("t", lltostr(7)));
	trace(strjoin("t", lltostr(8)));
	trace(strjoin("t", lltostr(9)));
	trace(strjoin("t", lltostr(10)));
	trace(strjoin("t", lltostr(11)));
	trace(strjoin("t", lltostr(12)));
	trace(strjoin("t", lltostr(13)));
	trace(strjoin("t", lltostr(14)));
	trace(strjoin("t", lltostr(15)));
	trace(strjoin("t", lltostr(16)));
	trace(strjoin("t", lltostr(17)));
	trace(strjoin("t", lltostr(18)));
	trace(strjoin("t", lltostr(19)));
	trace(strjoin("t", lltostr(20)));
	trace(strjoin("t", lltostr(21)));
	trace(strjoin("t", lltostr(22)));
	trace(strjoin("t", lltostr(23)));
	trace(strjoin("t", lltostr(24)));
	trace(strjoin("t", lltostr(25)));
	trace(strjoin("t", lltostr(26)));
	trace(strjoin("t", lltostr(27)));
	trace(strjoin("t", lltostr(28)));
	trace(strjoin("t", lltostr(29)));
	trace(strjoin("t", lltostr(30)));
	printf("\n");
}

BEGIN
{
	exit(0);
}
