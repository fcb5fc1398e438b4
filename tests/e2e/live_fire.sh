#!/usr/bin/env bash
# The blob's firing path (runtime/x86_64/fbt.c).  A site fetches only the
# arguments its probes read (mt_rt_probe_nargs, at INIT): an fbt entry's
# register and stack arguments, a second probe at the same instruction
# (kinst beside fbt) reading another one, and a return probe's arguments
# after arg1, which are 0, must all be what machload passes, whatever the
# other probes read.  The firing statistics are counted only when asked
# (MACHTRACE_LIVE_STATS): then every firing is one.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-fire

N=50
# send_int: mach_msg(&m, MACH_SEND_MSG, 48, 0, 0, 0, 0); receive_int:
# mach_msg(&m, MACH_RCV_MSG, 0, 256, port, 0, 0); arg6 is on the stack
prog='fbt::mach_msg_trap:entry /execname == "machload"/ { @e[arg1, arg2, arg3, arg6] = count(); }
fbt::mach_msg_trap:return /execname == "machload"/ { @r[arg2, arg9] = count(); }
kinst::mach_msg_trap:0 /execname == "machload"/ { @k[arg1] = count(); }
END { printa("e %d %d %d %d %@d\n", @e); printa("r %d %d %@d\n", @r); printa("k %d %@d\n", @k); }'
live_run args "rt=$N pingpong=0 pages=0 threads=0 tasks=0" "$prog" -q
rc=$?
workload_ok live-fire-workload-completes "$TMP/args.con"
get() { sed -n "s/^$1 \([0-9][0-9]*\)\$/\1/p" "$TMP/args.out" | head -n 1; }
send=$(get "e 1 48 0 0") rcv=$(get "e 2 0 256 0") ret=$(get "r 0 0")
k1=$(get "k 1") k2=$(get "k 2") e1=$(awk '$1 == "e" && $2 == 1 { n += $6 } END { print n + 0 }' "$TMP/args.out")
e2=$(awk '$1 == "e" && $2 == 2 { n += $6 } END { print n + 0 }' "$TMP/args.out")
if [ $rc = 0 ] && [ "${send:-0}" -ge $N ] && [ "${rcv:-0}" -ge $N ]; then
	pass live-fire-entry-args
else
	fail live-fire-entry-args "exit $rc, sends ${send:-0}, receives ${rcv:-0} (want >= $N each): $(head -c 400 "$TMP/args.out") $(head -c 200 "$TMP/args.err")"
fi
if [ "${ret:-0}" -ge $((2 * N)) ] && ! grep -q '^r [0-9]* [1-9]' "$TMP/args.out" &&
   ! grep -q '^r [1-9]' "$TMP/args.out"; then
	pass live-fire-return-args-zero
else
	fail live-fire-return-args-zero "return probes' arg2/arg9: $(grep '^r ' "$TMP/args.out" | head -n 3 | tr '\n' ' ')"
fi
if [ "${k1:-0}" = "$e1" ] && [ "${k2:-0}" = "$e2" ] && [ "$e1" -ge $N ]; then
	pass live-fire-second-probe-args
else
	fail live-fire-second-probe-args "kinst arg1: 1 x ${k1:-0}, 2 x ${k2:-0}; fbt: 1 x $e1, 2 x $e2"
fi

prog='fbt::mach_msg_trap:entry { @[probefunc] = count(); } END { printa("n %@d\n", @); }'
MACHTRACE_LIVE_STATS=1 live_run stats "rt=$N pingpong=0 pages=0 threads=0 tasks=0" "$prog" -q
n=$(val n "$TMP/stats.out")
f=$(sed -n 's/^machtrace: live: \([0-9]*\) firings, \([0-9]*\) tsc.*/\1 \2/p' "$TMP/stats.err")
# END is a firing too
if [ -n "$n" ] && [ "${f% *}" = $((n + 1)) ] && [ "${f#* }" -gt 0 ]; then
	pass live-fire-stats-when-asked
else
	fail live-fire-stats-when-asked "count ${n:-none}, statistics '${f:-none}' (want count + 1 firings, some TSC)"
fi
