#!/usr/bin/env bash
# Zero cost when disabled: after a session the kernel text hashes to the
# stock image's text again -- when the workload ends, when the D program
# calls exit(), and when the consumer is killed with SIGKILL (the kernel's
# deadman notices the silent host and removes every probe by itself).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-text

text_hash() {	# RAM file -> sha256 of [_start, etext) at its physical address
	"$LIVE" textcheck "$1"
}

MACHTRACE_TEXTCHECK=1 live_run normal "rt=200 pingpong=10 pages=16 threads=1 tasks=1" \
	'fbt::vm_*:entry, fbt::ipc_*:return { @[probefunc] = count(); }' -q
if grep -q "kernel text identical to the image" "$TMP/normal.err"; then
	pass live-text-after-workload
else
	fail live-text-after-workload "$(grep 'kernel text' "$TMP/normal.err") $(head -c 200 "$TMP/normal.err")"
fi

MACHTRACE_TEXTCHECK=1 live_run exit "rt=200000" \
	'fbt::mach_msg_trap:entry { n++; } fbt::mach_msg_trap:return /n >= 5000/ { exit(0); }' -q
if [ $? = 0 ] && grep -q "kernel text identical to the image" "$TMP/exit.err"; then
	pass live-text-after-exit
else
	fail live-text-after-exit "$(head -c 300 "$TMP/exit.err")"
fi

# SIGKILL: QEMU survives us (MACHTRACE_SURVIVE); its RAM (a memfd) is read
# through QEMU's fd 3.
MACHTRACE_CONSOLE_LOG=$TMP/kill.con MACHTRACE_SURVIVE=1 MACHTRACE_DEADMAN_MS=1500 "$MACHTRACE" --timeout 120 --workload "rt=5000000" \
	-n 'fbt::mach_msg_trap:entry, fbt::thread_invoke:entry, fbt::vm_fault:return { @ = count(); }' \
	>"$TMP/kill.out" 2>"$TMP/kill.err" &
pid=$!
qpid=
for i in $(seq 200); do
	qpid=$(pgrep -f "name machtrace-$pid-" | head -n 1)
	# the workload starts once the probes are in (the shim's own boot
	# patches make the text differ for a moment before that)
	[ -n "$qpid" ] && grep -q "machload: start" "$TMP/kill.con" 2>/dev/null && break
	sleep 0.05
done
# hold the RAM: it lives as long as someone has it open
exec 9<"/proc/$qpid/fd/3"
during=$("$LIVE" textcheck /proc/$$/fd/9 2>&1)
{ kill -9 $pid; wait $pid; } 2>/dev/null
after=
for i in $(seq 100); do
	after=$("$LIVE" textcheck /proc/$$/fd/9 2>&1) && break
	sleep 0.1
done
case "$during/$after" in
*differs*/*identical*) pass live-text-after-sigkill ;;
*) fail live-text-after-sigkill "while tracing: $during; after the deadman: $after" ;;
esac
[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
exec 9<&-

# Ctrl-C: END runs in the kernel, the aggregation is printed, the text is
# restored, and no QEMU is left.
MACHTRACE_CONSOLE_LOG=$TMP/int.con MACHTRACE_TEXTCHECK=1 "$MACHTRACE" --timeout 120 --workload "rt=5000000" \
	-n 'fbt::mach_msg_trap:entry { @ = count(); } END { printf("end in kernel\n"); }' \
	>"$TMP/int.out" 2>"$TMP/int.err" &
pid=$!
for i in $(seq 200); do
	grep -q "machload: start" "$TMP/int.con" 2>/dev/null && break
	sleep 0.05
done
kill -INT $pid
wait $pid
rc=$?
if [ $rc = 0 ] && grep -q "end in kernel" "$TMP/int.out" && grep -qE "^ +[0-9]+$" "$TMP/int.out" &&
   grep -q "kernel text identical to the image" "$TMP/int.err"; then
	pass live-ctrl-c
else
	fail live-ctrl-c "exit $rc: $(tr '\n' ' ' <"$TMP/int.out" | head -c 200) $(head -c 200 "$TMP/int.err")"
fi
no_leftovers live-ctrl-c-no-leftovers $pid

# SIGSTOP for longer than the deadman: the kernel removes the probes by
# itself; once resumed, machtrace says so as dtrace does and still prints.
MACHTRACE_CONSOLE_LOG=$TMP/stop.con MACHTRACE_DEADMAN_MS=1000 MACHTRACE_TEXTCHECK=1 \
	"$MACHTRACE" --timeout 120 --workload "rt=5000000" -n 'fbt::mach_msg_trap:entry { @ = count(); }' \
	>"$TMP/stop.out" 2>"$TMP/stop.err" &
pid=$!
for i in $(seq 200); do
	grep -q "machload: start" "$TMP/stop.con" 2>/dev/null && break
	sleep 0.05
done
kill -STOP $pid
sleep 3
kill -CONT $pid
wait $pid
rc=$?
if [ $rc != 0 ] && grep -q "^dtrace: processing aborted: Abort due to systemic unresponsiveness$" "$TMP/stop.err" &&
   grep -qE "^ +[0-9]+$" "$TMP/stop.out" && grep -q "kernel text identical to the image" "$TMP/stop.err"; then
	pass live-deadman-sigstop
else
	fail live-deadman-sigstop "exit $rc: $(tr '\n' ' ' <"$TMP/stop.err" | head -c 300)"
fi
no_leftovers live-deadman-sigstop-no-leftovers $pid
