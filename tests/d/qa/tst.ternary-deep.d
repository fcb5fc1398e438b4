/* Deeply nested ?: in the false arm does not run out of registers. */
#pragma D option quiet

BEGIN
{
	v = 9;
	printf("%s\n",
	    v == 1 ? strjoin("o", "ne") : v == 2 ? strjoin("t", "wo") :
	    v == 3 ? strjoin("th", "ree") : v == 4 ? strjoin("fo", "ur") :
	    v == 5 ? strjoin("fi", "ve") : v == 6 ? strjoin("s", "ix") :
	    v == 7 ? strjoin("se", "ven") : v == 8 ? strjoin("ei", "ght") :
	    v == 9 ? strjoin("ni", "ne") : v == 10 ? strjoin("t", "en") :
	    v == 11 ? strjoin("ele", "ven") : v == 12 ? strjoin("twe", "lve") :
	    v == 13 ? strjoin("thir", "teen") : v == 14 ? "fourteen" :
	    v == 15 ? "fifteen" : v == 16 ? "sixteen" : "many");
	exit(0);
}
