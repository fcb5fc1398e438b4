/* trunc( ) of an aggregation never assigned. */
BEGIN
{
	trunc(@nosuch, 2);
}
