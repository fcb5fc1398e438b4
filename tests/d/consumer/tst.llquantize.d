/* llquantize() with positive values only. */
#pragma D option quiet

BEGIN
{
	@ = llquantize(15, 10, 1, 3, 10);
	@ = llquantize(15, 10, 1, 3, 10);
	@ = llquantize(250, 10, 1, 3, 10);
	@ = llquantize(5, 10, 1, 3, 10);
	exit(0);
}
