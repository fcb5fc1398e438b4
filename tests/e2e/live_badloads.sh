#!/usr/bin/env bash
# Bad loads from D are safe loads: 1000+ dereferences of non-pointers and
# stringof() on junk give dtrace's ERROR reports, and the kernel runs the
# workload to its end.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-badloads

# arg1 of mach_msg_trap is the option word (1, 2, 3...), never a pointer;
# arg0 of vm_fault is a vm_map pointer: xor-ed with junk it is not canonical.
prog='fbt::mach_msg_trap:entry /execname == "machload"/ { trace(*(int *)arg1); }
fbt::mach_msg_trap:entry /execname == "machload"/ { trace(*(long *)(arg1 << 12)); }
fbt::vm_fault:entry { trace(stringof((char *)(arg0 ^ 0x5a5a000000000000))); }'
live_run bad "rt=300 pingpong=0 pages=32 threads=0 tasks=0" "$prog"
rc=$?
errs=$(grep -c "^dtrace: error on enabled probe ID [0-9]* (ID [0-9]*: fbt:gnumach:[a-z_]*:entry): invalid \(address\|alignment\) (0x[0-9a-f]*) at DIF offset [0-9]*$" "$TMP/bad.err")
if [ "$errs" -ge 1000 ]; then
	pass live-badloads-error-reports
else
	fail live-badloads-error-reports "$errs ERROR reports (want >= 1000), exit $rc: $(grep -v '^dtrace: error' "$TMP/bad.err" | head -c 300)"
fi
if grep -q "(ID [0-9]*: fbt:gnumach:vm_fault:entry): invalid address" "$TMP/bad.err"; then
	pass live-badloads-stringof
else
	fail live-badloads-stringof "no invalid address report for stringof() on junk"
fi
workload_ok live-badloads-kernel-survives "$TMP/bad.con"
