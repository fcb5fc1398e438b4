/* mach_msgname() takes a message id, not a string. */
BEGIN
{
	trace(mach_msgname("thread_create"));
}
