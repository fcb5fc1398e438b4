/* tracemem(): dtrace's hex and ASCII dump. */
#pragma D option quiet

BEGIN
{
	this->p = (char *)alloca(8);
	bcopy("hello", this->p, 6);
	tracemem(this->p, 8);
	exit(0);
}
