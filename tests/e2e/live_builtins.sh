#!/usr/bin/env bash
# Built-in variables and providers in kernel context: BEGIN/END/ERROR run
# in the kernel, tick-N and profile-N fire from the clock interrupt,
# execname is the task's name, timestamp/walltimestamp are sane, caller and
# stack() are kernel addresses.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-builtins

now=$(date +%s)
prog='BEGIN { printf("begin %d\n", cpu); }
tick-20ms { ticks++; }
profile-997 { @prof[arg0 != 0 ? "kernel" : "user"] = count(); }
fbt::thread_invoke:entry /execname == "machload"/ { @switch[execname] = count(); }
fbt::vm_fault:entry /!seen/ { seen = 1; printf("caller %x wall %d ts %d\n", caller, walltimestamp / 1000000000, timestamp > 0); stack(); }
END { printf("ticks %d\n", ticks); printa("prof %s %@d\n", @prof); printa("switch %s %@d\n", @switch); }'
live_run builtins "rt=100000 pingpong=100 pages=64 threads=1 tasks=1" "$prog" -q --mach
rc=$?
out=$TMP/builtins.out
if [ $rc = 0 ] && grep -q "^begin 0$" "$out"; then
	pass live-builtins-begin-in-kernel
else
	fail live-builtins-begin-in-kernel "exit $rc: $(head -c 300 "$TMP/builtins.err")"
fi
t=$(val ticks "$out")
if [ "${t:-0}" -ge 2 ]; then
	pass live-builtins-tick
else
	fail live-builtins-tick "tick-20ms fired ${t:-no} times"
fi
if grep -qE "^prof kernel [0-9]+$" "$out"; then
	pass live-builtins-profile
else
	fail live-builtins-profile "no profile-997 samples: $(grep prof "$out")"
fi
if grep -qE "^switch machload [0-9]+$" "$out"; then
	pass live-builtins-execname
else
	fail live-builtins-execname "$(grep switch "$out")"
fi
line=$(grep "^caller " "$out")
set -- $line
if [ "${2#ffffffff8}" != "${2:-x}" ] && [ "${4:-0}" -ge $((now - 60)) ] && [ "${4:-0}" -le $((now + 60)) ] && [ "${6:-0}" = 1 ]; then
	pass live-builtins-caller-time
else
	fail live-builtins-caller-time "'$line' (now $now)"
fi
frames=$(grep -cE "^ +(gnumach\`[a-z_0-9]+(\+0x[0-9a-f]+)?|0xffffffff8[0-9a-f]+)$" "$out")
if [ "$frames" -ge 3 ] && grep -qE "^ +gnumach\`vm_fault$" "$out"; then
	pass live-builtins-stack
else
	fail live-builtins-stack "$frames kernel frames in stack(), top not gnumach\`vm_fault"
fi
# stack() as an aggregation key, symbolised: the context switch of a
# blocking receive
prog='fbt::thread_invoke:entry /execname == "machload"/ { @[stack()] = count(); }'
live_run stacks "rt=10 pingpong=20 pages=0 threads=0 tasks=0" "$prog" -q
if grep -qE "^ +gnumach\`thread_block\+0x[0-9a-f]+$" "$TMP/stacks.out" &&
   grep -qE "^ +gnumach\`mach_msg_trap\+0x[0-9a-f]+$" "$TMP/stacks.out"; then
	pass live-builtins-stack-keys
else
	fail live-builtins-stack-keys "$(head -c 300 "$TMP/stacks.out" "$TMP/stacks.err")"
fi
