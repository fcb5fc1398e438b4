/* trace() prints each integer at its size and signedness. */
#pragma D option quiet

BEGIN
{
	trace((char)-1); trace(" ");
	trace((unsigned char)255); trace(" ");
	trace((short)-2); trace(" ");
	trace((unsigned short)65535); trace(" ");
	trace(-3); trace(" ");
	trace((unsigned int)4294967295); trace(" ");
	trace((long long)-4); trace(" ");
	trace(18446744073709551615ULL); trace("\n");
	exit(0);
}
