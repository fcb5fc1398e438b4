#!/usr/bin/env bash
# engines: once (it runs each engine itself)
# Compiled kernel probes load from the kernel's direct map inline (the
# platform's loadable ranges, jitabi.h MT_JR_PLAT_LOADABLE) and call the
# runtime's safe load for any other address.  Loads of every size and
# signedness give the interpreter's values; a misaligned load still
# reports dtrace's alignment ERROR at each firing, as the interpreter does.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-jit-loads

N=200
E='fbt::mach_msg_trap:entry /execname == "machload"/'
prog="long a;
$E { a = (long)&\`version; @s1 = sum(*(char *)(a + 3)); @s2 = sum(*(short *)(a + 2));
	@s4 = sum(*(int *)(a + 4)); @s8 = sum(*(long *)(a + 8)); @u1 = sum(*(unsigned char *)(a + 5));
	@u2 = sum(*(unsigned short *)(a + 6)); @u4 = sum(*(unsigned int *)(a + 8));
	@t = sum(*(char *)((long)curthread->task + 7)); @n = count(); }
$E { trace(*(int *)((long)&\`version + 1)); }
END { printa(\"s1 %@d\\n\", @s1); printa(\"s2 %@d\\n\", @s2); printa(\"s4 %@d\\n\", @s4);
	printa(\"s8 %@d\\n\", @s8); printa(\"u1 %@d\\n\", @u1); printa(\"u2 %@d\\n\", @u2);
	printa(\"u4 %@d\\n\", @u4); printa(\"t %@d\\n\", @t); printa(\"n %@d\\n\", @n); }"
words="rt=$N pingpong=0 pages=0 threads=0 tasks=0"
live_run jit "$words" "$prog" -q -S
rc=$?
MACHTRACE_NOJIT=1 live_run nojit "$words" "$prog" -q
rc2=$?
workload_ok live-jit-loads-workload-completes "$TMP/jit.con"

compiled=$(grep -c "^Probe .*: compiled, [0-9]* bytes" "$TMP/jit.err")
if [ "$compiled" = 1 ] && grep -q "! loadable" "$TMP/jit.err"; then
	pass live-jit-loads-inline
else
	fail live-jit-loads-inline "$compiled of 1 probe compiled, $(grep -c '! loadable' "$TMP/jit.err") inline range checks"
fi
# each value's sum over the firings, per firing: the same in both engines
per() {	# out file: each value divided by the firings
	local n
	n=$(val n "$1")
	[ "${n:-0}" -ge $((2 * N)) ] || return 1
	awk -v n="$n" 'NF == 2 && $1 != "n" { printf "%s %d\n", $1, $2 / n }' "$1"
}
a=$(per "$TMP/jit.out") && b=$(per "$TMP/nojit.out")
if [ $rc = 0 ] && [ $rc2 = 0 ] && [ -n "$a" ] && [ "$a" = "$b" ] &&
   [ "$(echo "$a" | grep -c .)" = 8 ]; then
	pass live-jit-loads-same-values
else
	fail live-jit-loads-same-values "exit $rc/$rc2: $(diff <(echo "$a") <(echo "$b") | head -n 6)"
fi
e1=$(grep -c "error on enabled probe.*invalid alignment" "$TMP/jit.err")
e2=$(grep -c "error on enabled probe.*invalid alignment" "$TMP/nojit.err")
n1=$(val n "$TMP/jit.out"); n2=$(val n "$TMP/nojit.out")
if [ "${n1:-0}" -ge $((2 * N)) ] && [ "$e1" = "$n1" ] && [ "$e2" = "$n2" ]; then
	pass live-jit-loads-misaligned-faults
else
	fail live-jit-loads-misaligned-faults "alignment ERRORs $e1 of $n1 firings compiled, $e2 of $n2 interpreted"
fi
