/* Associative arrays and thread-locals; storing 0 deletes. */
#pragma D option quiet

BEGIN
{
	a["x", 1] = 10;
	a["y", 2] = 20;
	self->t = a["x", 1] + a["y", 2];
	a["x", 1] = 0;
	printf("%d %d %d\n", a["x", 1], a["y", 2], self->t);
	exit(0);
}
