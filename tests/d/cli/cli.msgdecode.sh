#!/bin/sh
# machtrace msgdecode (rpcsnoop's filter) reads back the consumer's own
# tracemem() dumps: a request kept under its key ("@Q KEY") fills its
# reply line's {Q:KEY} with its items, the reply's dump fills {R} with
# its items after the RetCode; an unseen key is "?", other lines pass.
# The body: an INTEGER_32 7 and a 4-byte C string "helo", x86_64 layout.
"$MT" -q -n 'BEGIN
{
	this->p = (uint32_t *)alloca(32);
	this->p[0] = 0x20002002; this->p[1] = 1; this->p[2] = 7; this->p[3] = 0;
	this->p[4] = 0x2000200c; this->p[5] = 1; this->p[6] = 0x6f6c6568; this->p[7] = 0;
	printf("head\n@Q k1\n");
	tracemem(this->p, 32);
	printf("c: s->r ({Q:k1}) = %#x{R} (2 us)\n", 0);
	tracemem(this->p, 32, 16);
	printf("c: s->r ({Q:k1}) = 0{R} (3 us)\n");
	tracemem(this->p, 32);
	exit(0);
}' >"$T/dump" || { echo "machtrace: exit $?"; exit 1; }
"$MT" msgdecode <"$T/dump" >"$T/out" || { echo "msgdecode: exit $?"; exit 1; }
printf '%s\n' head 'c: s->r (7 "helo") = 0 (2 us)' 'c: s->r (?) = 0 "helo" (3 us)' >"$T/want"
cmp -s "$T/out" "$T/want" || { echo "got: $(cat "$T/out")"; exit 1; }
"$MT" msgdecode extra </dev/null 2>/dev/null; rc=$?
[ $rc = 2 ] || { echo "msgdecode with an operand: exit $rc, want 2"; exit 1; }
exit 0
