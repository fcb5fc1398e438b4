#!/usr/bin/env bash
# -c and -p (issue 10 item 5).  Tasks are numbered in creation order, so
# the boot's first module is pid 1 and the tasks machload creates follow
# it; -c 'machload WORDS exit' makes machload the target ($target 1) and
# tracing ends when it terminates itself (the machine stays up: only the
# target's exit can end the session), with dtrace's "pid N has exited";
# -c PATH boots that ELF; -p names a task by its number; a -p target that
# never ran is an error.  $target works in predicates (counts compared
# with machload's own), kernel text is stock after detach.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-target
N=12

# live_c NAME COMMAND PROGRAM [options]: as live_run, with -c instead of --workload
live_c() {
	local name=$1 cmd=$2 prog=$3
	shift 3
	MACHTRACE_CONSOLE_LOG=$TMP/$name.con MACHTRACE_TEXTCHECK=1 timeout 240 \
		"$MACHTRACE" --timeout 200 -c "$cmd" "$@" -n "$prog" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
}
prog='fbt::mach_msg_trap:entry /pid == $target/ { @m = count(); }
fbt::mach_msg_trap:entry /pid != $target/ { @o = count(); }
proc:::exit /args[0]->pr_pid == $target/ { @x = count(); }
END { printa("m %@d\n", @m); printa("x %@d\n", @x); printa("o %@d\n", @o); }'
live_c c "machload rt=$N exit" "$prog" -q
rc=$?
ok=$(sed -n "s/^machload: rt n=$N ok=\([0-9]*\) .*/\1/p" "$TMP/c.con")
m=$(val m "$TMP/c.out"); x=$(val x "$TMP/c.out"); o=$(val o "$TMP/c.out")
if [ $rc = 0 ] && [ "${ok:-x}" = $N ] && [ "${m:-0}" -ge $((2 * N)) ] && [ "${x:-0}" = 1 ] &&
   [ -z "$o" ] && grep -q '^dtrace: pid 1 has exited$' "$TMP/c.err" &&
   grep -q '^machload: done' "$TMP/c.con"; then
	pass live-target-c-to-exit
else
	fail live-target-c-to-exit "exit $rc, machload ok=${ok:-?}, traps ${m:-none} (want >= $((2 * N))), exit probe ${x:-none}, others ${o:-none}: $(head -c 300 "$TMP/c.err")"
fi
if grep -q "kernel text identical to the image" "$TMP/c.err"; then
	pass live-target-c-text-stock
else
	fail live-target-c-text-stock "$(grep 'kernel text' "$TMP/c.err")"
fi

live_c cpath "$BUILD/guest/machload rt=3 exit" 'proc:::exit /args[0]->pr_pid == $target/ { printf("target gone\n"); }' -q
rc=$?
if [ $rc = 0 ] && grep -q '^target gone$' "$TMP/cpath.out" &&
   grep -q '^dtrace: pid 1 has exited$' "$TMP/cpath.err"; then
	pass live-target-c-path
else
	fail live-target-c-path "exit $rc: $(head -c 300 "$TMP/cpath.out" "$TMP/cpath.err")"
fi

# creation order: machload 1, its tasks 2.. in the order it makes them
live_run order "rt=2 tasks=3" 'proc:::create { printf("create %d\n", args[0]->pr_pid); }
fbt::mach_msg_trap:entry /pid == $target/ { @m = count(); } END { printa("m %@d\n", @m); }' -q -p 1
rc=$?
got=$(sed -n 's/^create //p' "$TMP/order.out" | tr '\n' ' ')
if [ $rc = 0 ] && [ "$got" = "1 2 3 4 " ] && [ "$(val m "$TMP/order.out")" -ge 4 ] &&
   ! grep -q 'has exited' "$TMP/order.err"; then
	pass live-target-p-creation-order
else
	fail live-target-p-creation-order "exit $rc, created pids '$got': $(head -c 300 "$TMP/order.err")"
fi

live_run never "rt=2" 'fbt::mach_msg_trap:entry /pid == $target/ { @ = count(); }' -q -p 77
rc=$?
if [ $rc = 1 ] && grep -q 'failed to grab pid 77: no such task ran' "$TMP/never.err"; then
	pass live-target-p-never-ran
else
	fail live-target-p-never-ran "exit $rc: $(head -c 300 "$TMP/never.err")"
fi
