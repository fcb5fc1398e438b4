/*
 * @@runtest-opts: -q
 * link_ntop(): 6 bytes for ARPHRD_ETHER (1), 20 for ARPHRD_INFINIBAND
 * (32), lower-case hex joined by ':'; another type is an illegal
 * operation (fault 3).  The runtime had no case for it: it returned NULL.
 */
BEGIN
{
	this->p = (uint8_t *)alloca(20);
	this->p[0] = 0xde;
	this->p[1] = 0xad;
	this->p[5] = 0x0f;
	this->p[19] = 0xff;
	printf("%s\n", link_ntop(1, this->p));
	printf("%s\n", link_ntop(32, this->p));
}

BEGIN
{
	trace(link_ntop(7, (void *)alloca(6)));
}

ERROR
{
	printf("fault %d\n", arg4);
	exit(0);
}
