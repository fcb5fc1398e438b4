#!/usr/bin/env bash
# Destructive actions on the live kernel (issue 7, items 14, 15): refused
# without -w before the kernel boots; with -w, system() from a kernel
# probe runs on the host, chill() spins in the kernel, panic() panics the
# kernel and breakpoint() stops it in KDB -- and a kernel stopped in KDB,
# at any time of the session, is reported with its reason and a non-zero
# exit.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-destructive

W="rt=200 pingpong=0 pages=8 threads=0 tasks=0"

live_run nodestr "$W" 'fbt::vm_fault:entry { system("echo ran"); }' -q
rc=$?
if [ $rc != 0 ] && grep -q "^dtrace: could not enable tracing: Destructive actions not allowed$" "$TMP/nodestr.err" &&
   ! grep -q ran "$TMP/nodestr.out" && [ ! -s "$TMP/nodestr.con" ]; then
	pass live-destructive-needs-w
else
	fail live-destructive-needs-w "exit $rc: $(head -c 300 "$TMP/nodestr.err")"
fi

# system() on the host, once per firing; chill(100 ms) between two
# consecutive firings of a probe that fires every few microseconds
prog='fbt::mach_msg_trap:entry { n++; }
fbt::mach_msg_trap:entry /n == 100/ { t = timestamp; chill(100000000); system("echo host %d", n); }
fbt::mach_msg_trap:entry /n == 101/ { printf("gap-ms %d\n", (timestamp - t) / 1000000); }'
live_run w "$W" "$prog" -qw
rc=$?
gap=$(val gap-ms "$TMP/w.out")
if [ $rc = 0 ] && grep -q "^host 100$" "$TMP/w.out"; then
	pass live-system-from-kernel-probe
else
	fail live-system-from-kernel-probe "exit $rc: $(head -c 300 "$TMP/w.out" "$TMP/w.err")"
fi
if [ "${gap:-0}" -ge 100 ]; then
	pass live-chill-spins
else
	fail live-chill-spins "gap ${gap:-none} ms after chill(100 ms)"
fi

live_run panic "$W" 'fbt::vm_fault:entry /++n == 3/ { panic(); }' -qw
rc=$?
if [ $rc != 0 ] && grep -q "kernel panicked.*panic() action in probe context" "$TMP/panic.err" &&
   grep -q "^db>" "$TMP/panic.con"; then
	pass live-panic-action
else
	fail live-panic-action "exit $rc: $(head -c 300 "$TMP/panic.err")"
fi

live_run bpt "$W" 'fbt::vm_fault:entry /++n == 3/ { breakpoint(); }' -qw
rc=$?
if [ $rc != 0 ] && grep -q "stopped in its debugger (KDB): Kernel Breakpoint trap" "$TMP/bpt.err"; then
	pass live-breakpoint-action
else
	fail live-breakpoint-action "exit $rc: $(head -c 300 "$TMP/bpt.err")"
fi

# item 15: the kernel stops in KDB while tracing ends (END fires in it)
live_run kdbend "$W" 'END { breakpoint(); }' -qw --mach
rc=$?
if [ $rc != 0 ] && grep -q "stopped in its debugger (KDB)" "$TMP/kdbend.err"; then
	pass live-kdb-at-end-fails
else
	fail live-kdb-at-end-fails "exit $rc: $(head -c 300 "$TMP/kdbend.err")"
fi
