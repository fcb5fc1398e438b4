/*
 * An aggregation records data: speculate( ) may not follow it (dtrace's
 * clause rules, dt_cg_clsflags: D_SPEC_DREC, there is no tag of its own).
 */
BEGIN
{
	@ = count();
	speculate(speculation());
}
