/*
 * mach_msgname() and mach_msgsubsystem() (machtrace extensions) name Mach
 * message ids from the built-in gnumach msgids: routines, ROUTINE-reply
 * for replies, the number when unknown (subsystem ""); usable as keys.
 */
#pragma D option quiet

BEGIN
{
	printf("%s %s\n", mach_msgname(2061), mach_msgname(2161));
	printf("%s %s %s\n", mach_msgsubsystem(2061), mach_msgsubsystem(2161),
	    mach_msgname(3204));
	printf("[%s] [%s] [%s]\n", mach_msgname(12345), mach_msgsubsystem(12345),
	    mach_msgname(-1));
	printf("%s %s\n", mach_msgname(4800), mach_msgname(4900));
	x = 2061;
	printf("%s %d\n", mach_msgname(x + 100), strlen(mach_msgname(x)));
	@[mach_msgname(2012)] = count();
	@[mach_msgname(2012)] = count();
	@[mach_msgname(2112)] = count();
	exit(0);
}

END
{
	printa("%s %@d\n", @);
}
