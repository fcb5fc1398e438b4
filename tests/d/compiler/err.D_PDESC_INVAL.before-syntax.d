/*
 * An overspecified probe description is reported where the parser reads
 * it (dtrace's dt_node_pdesc_by_name), before a later syntax error.
 * @@stderr-match: line 5: invalid probe description */
a:b:c:d:e
{
}

BEGIN
{
	x = ;
}
