/*
 * mach_pid(), mach_tid() and mach_execname() (machtrace's, for GNU Mach
 * tasks and threads) on the local target, which has none: -1 and "".
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d [%s]\n", mach_pid((void *)8), mach_tid((void *)8),
	    mach_execname((void *)8));
	printf("%d %d\n", mach_pid(NULL), mach_tid(NULL));
	exit(0);
}
