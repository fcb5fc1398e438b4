/*
 * -x msgids: a user's files override the built-in names, later paths
 * (colon-separated; a directory means its *.msgids) override earlier ones.
 * @@runtest-opts: -x msgids=tests/d/runtime/msgids-fixture/user.msgids:tests/d/runtime/msgids-fixture/dir
 */
#pragma D option quiet

BEGIN
{
	printf("%s %s %s\n", mach_msgname(2061), mach_msgname(2161),
	    mach_msgsubsystem(2061));
	printf("%s %s %s\n", mach_msgname(70000), mach_msgname(70100),
	    mach_msgsubsystem(70000));
	printf("%s\n", mach_msgname(2062));
	exit(0);
}
