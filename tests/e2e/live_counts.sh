#!/usr/bin/env bash
# fbt counts are the kernel's real ones: N IPC round trips give at least 2N
# mach_msg_trap entries from the workload's task, P touched pages at least
# P vm_fault entries, every blocking receive a thread_invoke (context switch).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-counts

N=1000 P=256 B=50
prog='fbt::mach_msg_trap:entry /execname == "machload"/ { @m = count(); }
fbt::vm_fault:entry /execname == "machload"/ { @v = count(); }
fbt::thread_invoke:entry { @t = count(); }
END { printa("m %@d\n", @m); printa("v %@d\n", @v); printa("t %@d\n", @t); }'
live_run counts "rt=$N pingpong=$B pages=$P threads=1 tasks=1" "$prog" -q
rc=$?
workload_ok live-counts-workload-completes "$TMP/counts.con"
m=$(val m "$TMP/counts.out"); v=$(val v "$TMP/counts.out"); t=$(val t "$TMP/counts.out")
if [ $rc = 0 ] && [ "${m:-0}" -ge $((2 * N)) ]; then
	pass live-counts-mach_msg_trap
else
	fail live-counts-mach_msg_trap "exit $rc, mach_msg_trap=${m:-none} (want >= $((2 * N))): $(head -c 300 "$TMP/counts.err")"
fi
if [ "${v:-0}" -ge $P ]; then
	pass live-counts-vm_fault
else
	fail live-counts-vm_fault "vm_fault=${v:-none} (want >= $P)"
fi
if [ "${t:-0}" -ge $((2 * B)) ]; then
	pass live-counts-thread_invoke
else
	fail live-counts-thread_invoke "thread_invoke=${t:-none} (want >= $((2 * B)))"
fi

# arguments: each round trip sends (option arg1 = MACH_SEND_MSG = 1) a
# 48-byte message (send_size arg2); execname is the task's name
prog='fbt::mach_msg_trap:entry /execname == "machload" && arg1 == 1 && arg2 == 48/ { @[execname] = count(); }
END { printa("%s %@d\n", @); }'
live_run args "rt=$N pingpong=0 pages=0 threads=0 tasks=0" "$prog" -q
a=$(val machload "$TMP/args.out")
if [ "${a:-0}" -ge $N ]; then
	pass live-args-execname
else
	fail live-args-execname "machload sends of 48 bytes: ${a:-none} (want >= $N): $(head -c 300 "$TMP/args.out" "$TMP/args.err")"
fi
