#!/usr/bin/env bash
# sched: on-cpu and off-cpu of machload's threads balance (within the one
# switch in progress at the start or end), cover every blocking receive
# of pingpong=P (2 per round trip) and of rpcs=R (client and server each
# block once per RPC), and fire on all three switch paths; the IPC fast
# path's direct handoff (thread_handoff) is seen both as sched:::handoff
# and as on-cpu after it, as often as the kernel's thread_handoff switched
# (it returns TRUE then, in the new thread: counted independently by fbt).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-sched

P=20 R=8
prog='sched:::off-cpu /execname == "machload"/ { @off = count(); @offf[probefunc] = count(); }
sched:::on-cpu /execname == "machload"/ { @on = count(); @onf[probefunc] = count(); }
sched:::handoff { @h = count(); }
fbt::thread_handoff:return /arg1/ { @sh = count(); }
sched:::off-cpu /args[0] == 0/ { @null = count(); }
END {
	printa("off %@d\n", @off); printa("on %@d\n", @on);
	printa("h %@d\n", @h); printa("sh %@d\n", @sh);
	printa("off-%s %@d\n", @offf); printa("on-%s %@d\n", @onf);
	printa("null %@d\n", @null);
}'
live_run sched "rt=0 pingpong=$P pages=0 threads=0 tasks=0 rpcs=$R" "$prog" -q
rc=$?
out=$TMP/sched.out
off=$(val off "$out"); on=$(val on "$out"); h=$(val h "$out"); sh=$(val sh "$out")
d=$(( ${on:-0} - ${off:-0} ))
if [ $rc = 0 ] && [ "${off:-0}" -gt 0 ] && [ $d -ge -1 ] && [ $d -le 1 ]; then
	pass live-sched-balance
else
	fail live-sched-balance "exit $rc, on=${on:-none} off=${off:-none}: $(head -c 300 "$TMP/sched.err")"
fi
if [ "${off:-0}" -ge $((2 * P + 2 * R)) ]; then
	pass live-sched-covers-blocking-receives
else
	fail live-sched-covers-blocking-receives "off-cpu ${off:-none} < $((2 * P + 2 * R))"
fi
if [ -n "${h:-}" ] && [ "$h" -gt 0 ] && [ "$h" = "${sh:-x}" ] &&
   [ "$(val on-thread_handoff "$out")" = "$h" ]; then
	pass live-sched-handoff-path
else
	fail live-sched-handoff-path "handoff ${h:-none}, stack_handoff from thread_handoff ${sh:-none}, on-cpu there $(val on-thread_handoff "$out")"
fi
if [ -n "$(val off-switch_context "$out")$(val on-thread_continue "$out")" ] &&
   [ -n "$(val off-stack_handoff "$out")" ] && [ -n "$(val on-thread_invoke "$out")" ]; then
	pass live-sched-switch-paths
else
	fail live-sched-switch-paths "$(grep -E '^(on|off)-' "$out" | tr '\n' ' ')"
fi
[ -z "$(val null "$out")" ] && pass live-sched-next-thread ||
	fail live-sched-next-thread "off-cpu args[0] NULL $(val null "$out") times"
workload_ok live-sched-workload "$TMP/sched.con"

# Three probes at one instruction (an SDT probe, fbt and kinst at
# thread_continue's entry) all fire, as often as each other.
live_run three "rt=1 pingpong=4 pages=0 threads=0 tasks=0" \
	'sched::thread_continue:on-cpu, fbt::thread_continue:entry, kinst::thread_continue:0 { @[probeprov] = count(); }
	END { printa("%s %@d\n", @); }' -q
rc=$?
s1=$(val sched "$TMP/three.out"); f1=$(val fbt "$TMP/three.out"); k1=$(val kinst "$TMP/three.out")
if [ $rc = 0 ] && [ "${s1:-0}" -gt 0 ] && [ "$s1" = "${f1:-x}" ] && [ "$s1" = "${k1:-y}" ]; then
	pass live-sched-three-probes-one-insn
else
	fail live-sched-three-probes-one-insn "exit $rc: sched ${s1:-none} fbt ${f1:-none} kinst ${k1:-none}: $(head -c 300 "$TMP/three.err")"
fi
