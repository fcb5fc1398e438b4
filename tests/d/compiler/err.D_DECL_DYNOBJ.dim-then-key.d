/* A tuple signature after an array dimension would make an array of
   associative arrays, which dtrace refuses (dt_decl_array). */
int a[5][int];

BEGIN
{
	exit(0);
}
