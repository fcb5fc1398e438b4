/*
 * trunc() and clear() between intervals: every later interval shows only
 * what was added since (never a negative or a lost value), for count(),
 * sum(), avg() and the keyless count(); a truncated key comes back when
 * it is updated again; min()/max() restart after clear().
 */
#pragma D option quiet

tick-10ms
{
	n++;
	@c["c"] = count();
	@s["s"] = sum(n);
	@a["a"] = avg(n);
	@k = count();
	@m["m"] = min(n);
	@x["x"] = max(n);
}

tick-10ms
/n == 3/
{
	@c["once"] = count();
	@s["once"] = sum(100);
}

tick-10ms
/n % 5 == 0/
{
	printf("interval %d\n", n / 5);
	printa(@c);
	printa(@s);
	printa(@a);
	printa(@k);
	printa(@m);
	printa(@x);
	trunc(@c);
	trunc(@s);
	clear(@a);
	clear(@k);
	clear(@m);
	clear(@x);
}

tick-10ms
/n == 15/
{
	exit(0);
}

END
{
	printf("end\n");
	printa(@c);
	printa(@s);
	printa(@k);
}
