/*
 * system() and freopen() take any first argument by prototype, unlike
 * printf()'s string, so a non-string there is refused for not being a
 * constant format, in dtrace's words.
 * @@runtest-opts: -w
 * @@stderr-match: system( ) argument #1 is incompatible with prototype:$
 */
BEGIN
{
	system(1);
	exit(0);
}
