/* normalize( ) and denormalize( ) of an aggregation never assigned. */
BEGIN
{
	denormalize(@nosuch);
}
