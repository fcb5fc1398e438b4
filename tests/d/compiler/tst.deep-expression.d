/*
 * @@runtest-opts: -q
 * Expressions deeper than the code generator's registers are computed,
 * not refused with D_NOREG nor miscomputed: a left operand waits in a
 * spill slot while a deep right operand is generated (as dtrace-utils
 * spills to its stack).  A right-deep chain of 40 additions of 1 is 41,
 * 21 alternating subtractions from this->b = 2 of this->a = 5 give
 * 2 - 5 = -3, and 30 nested ((k < inner) + 1), k cycling 0, 1, 2,
 * alternate 2, 2, 1 and end at 1.
 */
BEGIN
{
	x = 1;
	this->a = 5;
	this->b = 2;
	printf("%d\n", (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + (x + x)))))))))))))))))))))))))))))))))))))))));
	printf("%d\n", (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - (this->b - this->a))))))))))))))))))))));
	printf("%d\n", ((2 < ((1 < ((0 < ((2 < ((1 < ((0 < ((2 < ((1 < ((0 < ((2 < ((1 < ((0 < ((2 < ((1 < ((0 < ((2 < ((1 < ((0 < ((2 < ((1 < ((0 < ((2 < ((1 < ((0 < ((2 < ((1 < ((0 < ((2 < ((1 < ((0 < x) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x)) + x));
	exit(0);
}
