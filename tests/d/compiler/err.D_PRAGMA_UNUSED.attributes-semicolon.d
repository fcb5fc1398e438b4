/* A control line's words end at white space only: "answer;" names no
   identifier, so the pragma is unused (machtrace dropped the ';'). */
inline int answer = 42;
#pragma D attributes Evolving/Evolving/Common answer;

BEGIN
{
	exit(0);
}
