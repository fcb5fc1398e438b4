/*
 * Each kind of name a predicate can create and its statements then use:
 * a global, a self-> and a this-> variable, an associative array, and a
 * variable the statements update with op= (all cooked predicate first).
 */
#pragma D option quiet

BEGIN
/(g = 1) && (self->s = 2) && (this->t = 3) && (a["k"] = 4)/
{
	g += 10;
	printf("%d %d %d %d\n", g, self->s, this->t, a["k"]);
}

BEGIN
/g == 11/
{
	printf("second clause sees g\n");
	exit(0);
}
