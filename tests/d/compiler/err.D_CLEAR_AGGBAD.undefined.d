/* clear( ) of an aggregation never assigned. */
BEGIN
{
	clear(@nosuch);
}
