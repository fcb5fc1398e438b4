/* tracemem(): dtrace's hex and ASCII dump. */
#pragma D option quiet

BEGIN
{
	this->s = "hello";
	tracemem(this->s, 8);
	exit(0);
}
