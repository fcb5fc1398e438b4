#!/usr/bin/env bash
# Boots the stock GNU Mach with machload through the shim and checks what
# the workload printed and that QEMU exited by itself (guest reboot).
set -u
. "$(dirname "$0")/mach_lib.sh"
need_kernel mach-boot

words="rt=2000 pingpong=200 pages=300 threads=5 tasks=3"
"$MACHTRACE" boot --timeout 60 --log "$TMP/console.log" -- $words >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait $pid
rc=$?
if [ $rc = 0 ] && grep -q "guest rebooted after" "$TMP/err"; then
	pass mach-boot-reboots-cleanly
else
	fail mach-boot-reboots-cleanly "exit $rc: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
fi

check_line() {	# test name, phase, n
	if grep -qE "^machload: $2 n=$3 ok=$3 cycles=[0-9]+ per=[0-9]+ OK$" "$TMP/out"; then
		pass "$1"
	else
		fail "$1" "no 'machload: $2 n=$3 ok=$3 ... OK' line: $(grep "machload: $2" "$TMP/out")"
	fi
}
check_line mach-boot-ipc-round-trips rt 2000
check_line mach-boot-blocking-pingpong pingpong 200
check_line mach-boot-page-faults pages 300
check_line mach-boot-thread-creations threads 5
check_line mach-boot-task-creations tasks 3
if grep -q "^machload: done$" "$TMP/out" && cmp -s "$TMP/out" "$TMP/console.log"; then
	pass mach-boot-console-log
else
	fail mach-boot-console-log "console log differs from the echoed console or lacks 'done'"
fi
no_leftovers mach-boot-no-leftovers $pid

# The user's own module string instead of the default workload.
mod="$BUILD/guest/machload \${host-port} \${device-port} rt=7 tasks=1 \$(task-create) \$(task-resume)"
"$MACHTRACE" boot --quiet --timeout 60 --log "$TMP/mod.log" --module "$mod" 2>"$TMP/err"
rc=$?
if [ $rc = 0 ] && grep -q "^machload: rt n=7 ok=7 " "$TMP/mod.log" &&
   grep -q "^machload: tasks n=1 ok=1 " "$TMP/mod.log" && ! grep -q "pingpong" "$TMP/mod.log"; then
	pass mach-boot-user-module
else
	fail mach-boot-user-module "exit $rc: $(tail -n 1 "$TMP/err")"
fi
