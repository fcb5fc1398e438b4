#!/usr/bin/env bash
# Providers beyond fbt.  kinst::FUNC:OFFSET probes any instruction (int3,
# the instruction run out of line, relocated); kinst::FUNC: probes every
# instruction at once and the workload still runs correctly.
# mach_trap::NAME:entry/return are Mach's system calls by trap name.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-providers

# kinst::FUNC: lists the instructions up to FUNC's end, past its 1024th
# (mach_msg_trap has ~1700): its last probe is in its last 64 bytes.
size=$(nm -S "$KERNEL" 2>/dev/null | awk '$4 == "mach_msg_trap" { print $2; exit }')
[ -n "$size" ] && size=$((0x$size))
last=$("$MACHTRACE" -l -n 'kinst::mach_msg_trap:' 2>/dev/null | awk 'NR > 1 { print $NF }' | sort -n | tail -n 1)
if [ -z "$size" ]; then
	echo "SKIP live-kinst-whole-function: nm cannot read mach_msg_trap's size"
elif [ -n "$last" ] && [ "$last" -ge $((size - 64)) ]; then
	pass "live-kinst-whole-function (last at +$last of $size bytes)"
else
	fail live-kinst-whole-function "the last kinst probe is at +${last:-none} of $size bytes"
fi

N=500
prog='kinst::mach_msg_trap: { @[probename] = count(); }
fbt::mach_msg_trap:entry { @e = count(); }
END { printa("insn %s %@d\n", @); printa("entry %@d\n", @e); }'
MACHTRACE_TEXTCHECK=1 live_run kinst "rt=$N pingpong=20 pages=16 threads=1 tasks=1" "$prog" -q
rc=$?
e=$(val entry "$TMP/kinst.out")
first=$(sed -n 's/^insn 0 \([0-9]*\)$/\1/p' "$TMP/kinst.out")
ninsn=$(grep -c "^insn " "$TMP/kinst.out")
if [ $rc = 0 ] && [ "${e:-0}" -ge $((2 * N)) ] && [ "${first:-0}" = "$e" ]; then
	pass live-kinst-offset-0-equals-entry
else
	fail live-kinst-offset-0-equals-entry "exit $rc, entry=${e:-none} kinst :0=${first:-none}: $(head -c 300 "$TMP/kinst.err")"
fi
if [ "$ninsn" -ge 100 ]; then
	pass live-kinst-every-instruction
else
	fail live-kinst-every-instruction "only $ninsn instructions fired"
fi
workload_ok live-kinst-workload-completes "$TMP/kinst.con"
if grep -q "kernel text identical to the image" "$TMP/kinst.err"; then
	pass live-kinst-text-restored
else
	fail live-kinst-text-restored "$(grep 'kernel text' "$TMP/kinst.err")"
fi
live_run kinstbad "rt=10" 'kinst::mach_msg_trap:2 { @ = count(); }' -q
if grep -q "does not match any probes" "$TMP/kinstbad.err"; then
	pass live-kinst-not-an-instruction
else
	fail live-kinst-not-an-instruction "$(head -c 300 "$TMP/kinstbad.err")"
fi

# mach_trap:::entry/return: Mach's system calls by their trap names
prog='mach_trap:::entry /execname == "machload"/ { @[probefunc] = count(); }
fbt::mach_msg_trap:entry /execname == "machload"/ { @f = count(); }
END { printa("trap %s %@d\n", @); printa("fbt %@d\n", @f); }'
live_run traps "rt=$N pingpong=0 pages=4 threads=0 tasks=0" "$prog" -q
m=$(sed -n 's/^trap mach_msg_trap \([0-9]*\)$/\1/p' "$TMP/traps.out")
f=$(val fbt "$TMP/traps.out")
if [ "${m:-0}" -ge $((2 * N)) ] && [ "$m" = "${f:-x}" ] && grep -q "^trap mach_reply_port [0-9]" "$TMP/traps.out"; then
	pass live-mach-trap-provider
else
	fail live-mach-trap-provider "mach_msg_trap=${m:-none} fbt=${f:-none}: $(head -c 300 "$TMP/traps.out" "$TMP/traps.err")"
fi
