#!/usr/bin/env bash
# machtrace vm start/list/console/stop (issue 12 item 1): a VM whose QEMU
# outlives the command, the runtime resident and idle with the kernel text
# identical to the image, machload serving; vm stop leaves nothing; the
# errors (a name already running, an unknown name) are said and fail.
set -u
. "$(dirname "$0")/vm_lib.sh"
need_vm vm-start

if grep -q "kernel text identical to the image" "$TMP/start.out" && kill -0 "$QEMU_PID" &&
   [ -f "$SHM" ] && [ -S "$VMDIR/qmp.sock" ] && [ -S "$VMDIR/gdb.sock" ]; then
	pass vm-start
else
	fail vm-start "$(cat "$TMP/start.out" "$TMP/start.err")"
fi

"$MACHTRACE" vm list >"$TMP/list" 2>&1
if grep -qE "^$VM +running +$QEMU_PID " "$TMP/list"; then
	pass vm-list
else
	fail vm-list "$(cat "$TMP/list")"
fi

"$MACHTRACE" vm console --no-follow "$VM" >"$TMP/con" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "machload: start" "$TMP/con" &&
   grep -q "^machload: serve round=" "$TMP/con"; then
	pass vm-console
else
	fail vm-console "exit $rc: $(tail -n 3 "$TMP/con")"
fi

if text_stock; then pass vm-text-stock; else fail vm-text-stock "$("$LIVE" textcheck "$SHM" "$KERNEL" 2>&1)"; fi

"$MACHTRACE" vm start --name "$VM" >/dev/null 2>"$TMP/dup"; rc=$?
if [ $rc != 0 ] && grep -q "vm $VM is already running" "$TMP/dup"; then
	pass vm-start-duplicate
else
	fail vm-start-duplicate "exit $rc: $(cat "$TMP/dup")"
fi

"$MACHTRACE" vm stop "nosuch-$$" >/dev/null 2>"$TMP/unk"; rc=$?
if [ $rc != 0 ] && grep -q "no VM named nosuch-$$" "$TMP/unk"; then
	pass vm-stop-unknown
else
	fail vm-stop-unknown "exit $rc: $(cat "$TMP/unk")"
fi

"$MACHTRACE" --vm "nosuch-$$" -n BEGIN >/dev/null 2>"$TMP/unk2"; rc=$?
if [ $rc != 0 ] && grep -q "no VM named nosuch-$$" "$TMP/unk2"; then
	pass vm-session-unknown
else
	fail vm-session-unknown "exit $rc: $(cat "$TMP/unk2")"
fi

"$MACHTRACE" vm start --name "bad-$$" --kernel /nonexistent >/dev/null 2>"$TMP/bad"; rc=$?
if [ $rc != 0 ] && grep -q "/nonexistent" "$TMP/bad" && [ ! -e "${VMDIR%/*}/bad-$$" ]; then
	pass vm-start-bad-kernel
else
	fail vm-start-bad-kernel "exit $rc: $(cat "$TMP/bad")"
fi

# an -icount machtrace does not use is refused before QEMU starts
# (rr=record,rrfile=PATH would have QEMU write PATH), nothing is left
MACHTRACE_ICOUNT="shift=0,rr=record,rrfile=$TMP/rr.bin" "$MACHTRACE" vm start --name "bad2-$$" \
	>/dev/null 2>"$TMP/bad2"; rc=$?
if [ $rc != 0 ] && grep -q "MACHTRACE_ICOUNT: icount 'shift=0,rr=record.*' is not one machtrace uses" "$TMP/bad2" &&
   [ ! -e "$TMP/rr.bin" ] && [ ! -e "${VMDIR%/*}/bad2-$$" ] && no_ram "bad2-$$"; then
	pass vm-start-bad-icount
else
	fail vm-start-bad-icount "exit $rc: $(cat "$TMP/bad2")"
fi

# a kernel that panics during boot (a boot module that is no program):
# KDB's message, nothing left
echo "not a program" >"$TMP/garbage"
"$MACHTRACE" vm start --name "bad3-$$" --module "$TMP/garbage \${host-port} \$(task-create) \$(task-resume)" \
	>/dev/null 2>"$TMP/bad3"; rc=$?
# the failed start's console log is kept, and named, beside the VM root
kept=$(sed -n 's/.*(console log: \(.*\))$/\1/p' "$TMP/bad3")
if [ $rc != 0 ] && grep -q "the kernel stopped in its debugger (KDB) during boot: panic" "$TMP/bad3" &&
   [ -n "$kept" ] && grep -q "panic .*Cannot load user executable" "$kept" &&
   [ ! -e "${VMDIR%/*}/bad3-$$" ] && no_ram "bad3-$$"; then
	pass vm-start-kernel-panic
else
	fail vm-start-kernel-panic "exit $rc: $(cat "$TMP/bad3")"
fi
[ -n "$kept" ] && rm -f "$kept"

"$MACHTRACE" vm stop "$VM" >"$TMP/stop" 2>&1; rc=$?
if [ $rc = 0 ]; then
	nothing_left vm-stop-nothing-left
else
	fail vm-stop-nothing-left "exit $rc: $(cat "$TMP/stop")"
fi
