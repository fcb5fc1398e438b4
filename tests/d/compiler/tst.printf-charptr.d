/* @@runtest-opts: -q */
/*
 * printf's %s (and %S) of a char * prints the string it points to, as
 * dtrace does, not the pointer's value (issue 7 item 10); other
 * conversions of the same pointer still see the pointer.
 */
BEGIN
{
	this->p = (char *)alloca(4);
	this->p[0] = 'h';
	this->p[1] = 'i';
	this->p[2] = '\0';
	printf("[%s] [%S] [%5s] [%d]\n", this->p, this->p, this->p,
	    this->p != 0);
	exit(0);
}
