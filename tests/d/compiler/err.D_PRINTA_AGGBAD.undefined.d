/*
 * printa( ) of an aggregation no clause assigns: dtrace's "undefined
 * aggregation" (dt_cg_act_printa), not a failure to resolve it.
 * @@stderr-match: undefined aggregation: @nosuch$
 */
BEGIN
{
	printa(@nosuch);
}
