/* tick-N fires on the local target until exit(); nothing fires after. */
#pragma D option quiet

tick-10ms
{
	n++;
}

tick-10ms
/n == 5/
{
	exit(0);
}

tick-10ms
/n > 5/
{
	printf("fired after exit\n");
}

END
{
	printf("%d\n", n);
}
