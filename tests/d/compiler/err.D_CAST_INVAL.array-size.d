/*
 * An array casts only to an array of the same element type and size (dtrace:
 * ctf_type_compat); a cast to a bigger one read past the declared array,
 * faulted, and the clause never reached its exit( ).
 */
int a[5];

BEGIN
{
	trace((int [10])a);
	exit(0);
}
