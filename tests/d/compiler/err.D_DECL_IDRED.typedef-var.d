/* A typedef may not take the name of a global variable (dt_node_decl). */
int nevents;
typedef int nevents;

BEGIN
{
	exit(0);
}
