#!/usr/bin/env bash
# Sessions on a running VM (issue 12 items 2 and 6): 20 sessions in a row,
# each counting mach_msg_trap for a second (non-zero), the kernel text
# stock between them; a second consumer while one is attached is refused;
# a consumer killed with SIGKILL leaves the VM running stock text after the
# deadman interval and the next session attaches; SIGINT ends a session
# normally; pids: machload is pid 1 as in a boot session, and -p works;
# -c (which boots a kernel) is refused with --vm; profile-997 samples at
# its rate in an attached session.  Nothing is left after
# vm stop.
set -u
. "$(dirname "$0")/vm_lib.sh"
need_vm vm-sessions
PROG='fbt::mach_msg_trap:entry { @n = count(); } tick-1s { exit(0); } END { printa("count %@d\n", @n); }'

session() {	# name, program, options...: stdout/stderr in $TMP/NAME.out/err
	local name=$1 prog=$2
	shift 2
	MACHTRACE_TEXTCHECK=1 timeout 60 "$MACHTRACE" --vm "$VM" -q -x statusrate=10ms "$@" \
		-n "$prog" >"$TMP/$name.out" 2>"$TMP/$name.err"
}

bad=""
for i in $(seq 1 20); do
	session s$i "$PROG"; rc=$?
	n=$(val count "$TMP/s$i.out")
	if [ $rc != 0 ] || [ "${n:-0}" -le 0 ] ||
	   ! grep -q "kernel text identical to the image" "$TMP/s$i.err" || ! text_stock; then
		bad="session $i: exit $rc, count ${n:-none}, $(head -c 300 "$TMP/s$i.err")"
		break
	fi
done
if [ -z "$bad" ]; then pass vm-20-sessions-stock-between; else fail vm-20-sessions-stock-between "$bad"; fi

# one session at a time
MACHTRACE_TEXTCHECK=1 "$MACHTRACE" --vm "$VM" -q -n 'tick-3s { exit(0); }' >/dev/null 2>&1 &
first=$!
for i in $(seq 1 100); do [ -s "$VMDIR/session.pid" ] && break; sleep 0.05; done
"$MACHTRACE" --vm "$VM" -q -n 'BEGIN { exit(0); }' >/dev/null 2>"$TMP/second"; rc=$?
"$MACHTRACE" vm list >"$TMP/alist" 2>&1
"$MACHTRACE" vm stop "$VM" >/dev/null 2>"$TMP/astop"; rcs=$?
wait $first; rc1=$?
if grep -qE "^$VM +running +[0-9]+ +[0-9:]+ +$first " "$TMP/alist" && [ $rcs = 1 ] &&
   grep -q "vm $VM: a session (pid $first) is attached; end it first" "$TMP/astop"; then
	pass vm-list-stop-attached
else
	fail vm-list-stop-attached "stop exit $rcs: $(cat "$TMP/alist" "$TMP/astop" | tr '\n' ' ')"
fi
if [ $rc = 1 ] && [ $rc1 = 0 ] &&
   grep -q "vm $VM: a session (pid $first) is attached; one session at a time" "$TMP/second"; then
	pass vm-second-consumer-refused
else
	fail vm-second-consumer-refused "exit $rc (first $rc1): $(cat "$TMP/second")"
fi

# SIGKILL: the deadman takes everything out, the next session attaches
if killed_session_restores 'fbt::mach_msg_trap:entry { @ = count(); }'; then
	pass vm-sigkill-deadman-stock
else
	fail vm-sigkill-deadman-stock "$killed_why"
fi
session after "$PROG"; rc=$?
n=$(val count "$TMP/after.out")
if [ $rc = 0 ] && [ "${n:-0}" -gt 0 ] && text_stock; then
	pass vm-attach-after-deadman
else
	fail vm-attach-after-deadman "exit $rc, count ${n:-none}: $(head -c 300 "$TMP/after.err")"
fi

# a session started right after the kill waits for the deadman, then attaches
MACHTRACE_DEADMAN_MS=1000 "$MACHTRACE" --vm "$VM" -q -n 'fbt::mach_msg_trap:entry { @ = count(); }' \
	>/dev/null 2>&1 &
victim=$!
for i in $(seq 1 100); do ! text_stock && break; sleep 0.05; done
kill -9 $victim; wait $victim 2>/dev/null
session waited "$PROG"; rc=$?
n=$(val count "$TMP/waited.out")
if [ $rc = 0 ] && [ "${n:-0}" -gt 0 ] && grep -q "waiting for the runtime's deadman" "$TMP/waited.err" &&
   text_stock; then
	pass vm-attach-waits-for-deadman
else
	fail vm-attach-waits-for-deadman "exit $rc, count ${n:-none}: $(head -c 300 "$TMP/waited.err")"
fi

# a client of the gdbstub that went away without detaching (a session
# killed while it held the VM) leaves the VM paused: vm list says so, the
# next session resumes it (QMP cont)
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(3)
s.sendall(b"$?#3f"); s.recv(64); s.close()' "$VMDIR/gdb.sock"
"$MACHTRACE" vm list >"$TMP/plist" 2>&1
session resumed "$PROG"; rc=$?
n=$(val count "$TMP/resumed.out")
"$MACHTRACE" vm list >"$TMP/rlist" 2>&1
if grep -qE "^$VM +paused " "$TMP/plist" && [ $rc = 0 ] && [ "${n:-0}" -gt 0 ] &&
   grep -qE "^$VM +running " "$TMP/rlist"; then
	pass vm-resumes-paused
else
	fail vm-resumes-paused "exit $rc, count ${n:-none}: $(cat "$TMP/plist" "$TMP/rlist" | tr '\n' ' ') $(head -c 200 "$TMP/resumed.err")"
fi

# SIGINT ends a session as dtrace's: END runs, the aggregation prints
MACHTRACE_TEXTCHECK=1 "$MACHTRACE" --vm "$VM" -q -n 'fbt::mach_msg_trap:entry { @n = count(); }
END { printa("count %@d\n", @n); }' >"$TMP/int.out" 2>"$TMP/int.err" &
p=$!
for i in $(seq 1 100); do ! text_stock && break; sleep 0.05; done
sleep 0.5
kill -INT $p; wait $p; rc=$?
n=$(val count "$TMP/int.out")
if [ $rc = 0 ] && [ "${n:-0}" -gt 0 ] && text_stock; then
	pass vm-sigint-ends-session
else
	fail vm-sigint-ends-session "exit $rc, count ${n:-none}: $(head -c 300 "$TMP/int.err")"
fi

# pids in creation order (machload, the first boot module, is 1); -p
session pids 'mach_trap:::entry /execname == "machload"/ { @[pid] = count(); } tick-1s { exit(0); }
END { printa("pid %d\n", @); }'; rc=$?
session target 'mach_trap:::entry /pid == $target/ { @n = count(); } tick-1s { exit(0); }
END { printa("count %@d\n", @n); }' -p 1; rc2=$?
if [ $rc = 0 ] && [ "$(sed -n 's/^pid //p' "$TMP/pids.out" | sort -u | tr '\n' ' ')" = "1 " ] &&
   [ $rc2 = 0 ] && [ "$(val count "$TMP/target.out")" -gt 0 ]; then
	pass vm-pids-creation-order
else
	fail vm-pids-creation-order "exit $rc/$rc2: $(cat "$TMP/pids.out" "$TMP/target.out" | head -c 300)"
fi

# sample rates in an attached session: the local APIC timer is taken at GO
# and given back at STOP (issue 12 item 4 on a running system)
session rate 'profile-997 { @n = count(); } tick-2s { exit(0); } END { printa("count %@d\n", @n); }'; rc=$?
n=$(val count "$TMP/rate.out")
if [ $rc = 0 ] && [ "${n:-0}" -ge 1894 ] && [ "${n:-0}" -le 2094 ] &&
   grep -q "kernel IDT identical to before tracing" "$TMP/rate.err" && text_stock; then
	pass vm-profile-997-rate
else
	fail vm-profile-997-rate "exit $rc, count ${n:-none} (want 1994 +/- 5 %): $(head -c 300 "$TMP/rate.err")"
fi

"$MACHTRACE" --vm "$VM" -c machload -n 'BEGIN { exit(0); }' >/dev/null 2>"$TMP/c"; rc=$?
if [ $rc != 0 ] && grep -q -- "-c boots a kernel" "$TMP/c"; then
	pass vm-refuses-c
else
	fail vm-refuses-c "exit $rc: $(cat "$TMP/c")"
fi

# a panic during a session: the session fails with KDB's message, the
# VM stays in KDB (vm list, vm console), vm stop still ends it
timeout 60 "$MACHTRACE" --vm "$VM" -q -w -n 'BEGIN { panic(); }' >/dev/null 2>"$TMP/panic"; rc=$?
"$MACHTRACE" vm list >"$TMP/list" 2>&1
if [ $rc != 0 ] && grep -q "debugger (KDB)" "$TMP/panic" &&
   grep -qE "^$VM +panicked-in-KDB " "$TMP/list"; then
	pass vm-panic-in-session
else
	fail vm-panic-in-session "exit $rc: $(cat "$TMP/panic" "$TMP/list" | head -c 400)"
fi

"$MACHTRACE" vm stop "$VM" >"$TMP/stop" 2>&1; rc=$?
if [ $rc = 0 ]; then
	nothing_left vm-sessions-nothing-left
else
	fail vm-sessions-nothing-left "exit $rc: $(cat "$TMP/stop")"
fi
