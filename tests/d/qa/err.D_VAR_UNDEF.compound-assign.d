/* x op= y reads x: it must have been declared or assigned before. */
BEGIN
{
	total += 5;
	exit(0);
}
