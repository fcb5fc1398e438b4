/* uregs[] indices: dtrace-utils' x86-64 regs.d names and values */
#pragma D option quiet
BEGIN
{
	printf("%d %d %d %d %d %d %d %d %d %d\n", R_R15, R_RBP, R_RAX, R_RDI,
	    R_ERR, R_RIP, R_CS, R_RFL, R_RSP, R_SS);
	printf("%d %d %d %d %d %d\n", R_DS, R_ES, R_FS, R_GS, R_TRAPNO, R_EBX);
	printf("%d %d %d %d %d %d\n", R_PC, R_SP, R_FP, R_PS, R_R0, R_R1);
	exit(0);
}
