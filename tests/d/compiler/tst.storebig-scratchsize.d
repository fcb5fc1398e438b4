/* @@runtest-opts: -q -x scratchsize=1m */
/* With enough scratch space the large array of err.D_DECL_ARRBIG.storebig.d
   is stored into (issue 7 item 16). */
int a[100000];

BEGIN
{
	a[5] = 3;
	a[99999] = 4;
	printf("%d %d %d\n", a[5], a[99999], a[6]);
	exit(0);
}
