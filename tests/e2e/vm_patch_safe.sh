#!/usr/bin/env bash
# Patching from the clock tick (issue 21): an attached session's sites go
# in and come out from the clock interrupt, which must not resume the
# kernel in the middle of a jmp it just wrote.  20 sessions of ipc:::send
# and ipc:::receive (jmp sites inside the hot message path) attach and
# detach on a VM busy with RPCs: each counts messages, ends normally, the
# kernel text is stock after each and the VM never panics.
set -u
. "$(dirname "$0")/vm_lib.sh"
need_vm vm-patch-safe 'rpcs=40 serve=50'
PROG='ipc:::send,ipc:::receive { @[probename] = count(); } tick-200ms { exit(0); }
END { printa("%s %@d\n", @); }'

bad=""
for i in $(seq 1 20); do
	MACHTRACE_TEXTCHECK=1 timeout 60 "$MACHTRACE" --vm "$VM" -q -n "$PROG" \
		>"$TMP/s$i.out" 2>"$TMP/s$i.err"; rc=$?
	s=$(val send "$TMP/s$i.out"); r=$(val receive "$TMP/s$i.out")
	"$MACHTRACE" vm list >"$TMP/list" 2>&1
	if [ $rc != 0 ] || [ "${s:-0}" -le 0 ] || [ "${r:-0}" -le 0 ] ||
	   ! grep -q "kernel text identical to the image" "$TMP/s$i.err" || ! text_stock ||
	   ! grep -qE "^$VM +running " "$TMP/list"; then
		bad="session $i: exit $rc, send ${s:-none} receive ${r:-none}: $(head -c 300 "$TMP/s$i.err") $(grep "^$VM " "$TMP/list")"
		break
	fi
done
if [ -z "$bad" ]; then pass vm-patch-safe-20-sessions; else fail vm-patch-safe-20-sessions "$bad"; fi

"$MACHTRACE" vm stop "$VM" >"$TMP/stop" 2>&1; rc=$?
if [ $rc = 0 ]; then
	nothing_left vm-patch-safe-nothing-left
else
	fail vm-patch-safe-nothing-left "exit $rc: $(cat "$TMP/stop")"
fi
