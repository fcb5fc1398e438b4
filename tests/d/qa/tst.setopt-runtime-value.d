/* setopt() takes option names and values computed at run time. */
#pragma D option quiet

BEGIN
{
	@a[1] = sum(30);
	@a[2] = sum(20);
	@a[3] = sum(10);
	setopt(strjoin("aggsort", "rev"), lltostr(1));
	printa(@a);
	setopt("aggsortrev", strjoin("n", "o"));
	printa(@a);
	exit(0);
}
