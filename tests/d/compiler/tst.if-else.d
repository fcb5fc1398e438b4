/*
 * if/else statements (D 2.0): braces or single statements, else-if
 * chains, nesting, printf/trace/aggregations/assignments in branches,
 * clause predicates, thread-locals.  Untaken branches print nothing.
 */
#pragma D option quiet

BEGIN
{
	x = 3;
	self->t = 1;
	if (x > 2)
		printf("big\n");
	else
		printf("small\n");
	if (x < 2) {
		printf("wrong\n");
	} else if (x == 3) {
		printf("three\n");
		@chain["three"] = count();
	} else
		printf("wrong too\n");
	if (self->t) {
		if (x == 1)
			trace("wrong");
		else {
			self->t = x * 2;
			printf("nested %d\n", self->t);
		}
	}
	if (x == 4)
		;
	else if (x == 5) {
	}
	if (0)
		exit(1);
	if (x != 3) printf("wrong: %d\n", x); else { y = x + 1; }
	printf("y %d\n", y);
}

BEGIN
/y == 4/
{
	if (y > 3 && self->t == 6)
		@chain["pred"] = count();
	if (y > 100)
		@chain["never"] = count();
	else
		@chain["else"] = count();
}

tick-1ms
{
	n++;
	if (n % 2)
		@odd = count();
	else if (n <= 10)
		@even = count();
}

tick-1ms
/n == 10/
{
	if (n == 10) { printf("tick %d\n", n); exit(0); }
}

END
{
	printa("chain %s %@d\n", @chain);
	printa("odd %@d\n", @odd);
	printa("even %@d\n", @even);
}
