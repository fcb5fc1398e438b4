/* Kernel globals need the kernel: on the local target `hz resolves to no
   symbol (dtrace: "failed to resolve `hz: Unknown symbol name"). */
BEGIN
{
	trace(`hz);
}
