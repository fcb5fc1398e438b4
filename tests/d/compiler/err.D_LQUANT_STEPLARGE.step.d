/* The lquantize() step must be smaller than limit - base. */
BEGIN
{
	@ = lquantize(1, 2, 3, 4);
}
