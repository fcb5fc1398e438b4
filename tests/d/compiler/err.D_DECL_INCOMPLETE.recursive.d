/* A struct cannot contain itself. */
struct r {
	struct r inner;
};
BEGIN
{
	exit(0);
}
