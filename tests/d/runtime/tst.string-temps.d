/*
 * @@runtest-opts: -q
 * A clause of many string statements runs in a clause's scratch space:
 * the string temporaries of an expression statement are given back once
 * it has run (dtrace-utils reuses its temporary string slots), where 60
 * strjoin(lltostr()) statements used to fault "out of scratch space".
 * alloca()'d memory stays allocated for the whole clause: the bytes
 * copied into it before the string statements are still there after.
 */
BEGIN
{
	p = (char *)alloca(8);
	bcopy("abcdefg", p, 8);
	s = "";
	s = strjoin(s, lltostr(1));
	s = strjoin(s, lltostr(2));
	s = strjoin(s, lltostr(3));
	s = strjoin(s, lltostr(4));
	s = strjoin(s, lltostr(5));
	s = strjoin(s, lltostr(6));
	s = strjoin(s, lltostr(7));
	s = strjoin(s, lltostr(8));
	s = strjoin(s, lltostr(9));
	s = strjoin(s, lltostr(10));
	s = strjoin(s, lltostr(11));
	s = strjoin(s, lltostr(12));
	s = strjoin(s, lltostr(13));
	s = strjoin(s, lltostr(14));
	s = strjoin(s, lltostr(15));
	s = strjoin(s, lltostr(16));
	s = strjoin(s, lltostr(17));
	s = strjoin(s, lltostr(18));
	s = strjoin(s, lltostr(19));
	s = strjoin(s, lltostr(20));
	s = strjoin(s, lltostr(21));
	s = strjoin(s, lltostr(22));
	s = strjoin(s, lltostr(23));
	s = strjoin(s, lltostr(24));
	s = strjoin(s, lltostr(25));
	s = strjoin(s, lltostr(26));
	s = strjoin(s, lltostr(27));
	s = strjoin(s, lltostr(28));
	s = strjoin(s, lltostr(29));
	s = strjoin(s, lltostr(30));
	s = strjoin(s, lltostr(31));
	s = strjoin(s, lltostr(32));
	s = strjoin(s, lltostr(33));
	s = strjoin(s, lltostr(34));
	s = strjoin(s, lltostr(35));
	s = strjoin(s, lltostr(36));
	s = strjoin(s, lltostr(37));
	s = strjoin(s, lltostr(38));
	s = strjoin(s, lltostr(39));
	s = strjoin(s, lltostr(40));
	s = strjoin(s, lltostr(41));
	s = strjoin(s, lltostr(42));
	s = strjoin(s, lltostr(43));
	s = strjoin(s, lltostr(44));
	s = strjoin(s, lltostr(45));
	s = strjoin(s, lltostr(46));
	s = strjoin(s, lltostr(47));
	s = strjoin(s, lltostr(48));
	s = strjoin(s, lltostr(49));
	s = strjoin(s, lltostr(50));
	s = strjoin(s, lltostr(51));
	s = strjoin(s, lltostr(52));
	s = strjoin(s, lltostr(53));
	s = strjoin(s, lltostr(54));
	s = strjoin(s, lltostr(55));
	s = strjoin(s, lltostr(56));
	s = strjoin(s, lltostr(57));
	s = strjoin(s, lltostr(58));
	s = strjoin(s, lltostr(59));
	s = strjoin(s, lltostr(60));
	printf("%d %s\n", strlen(s), s);
	printf("%c%c%c\n", p[0], p[3], p[6]);
	exit(0);
}
