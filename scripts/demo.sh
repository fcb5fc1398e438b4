#!/usr/bin/env bash
# make demo: D programs against a live GNU Mach (booted under QEMU with the
# machload workload, ~1 s each), then a few on the local target
# (dtrace:::BEGIN/END, profile:::tick-N), which needs no kernel.
set -u
mt=${MACHTRACE:-build/bin/machtrace}
run() {
	local line='$ machtrace' a
	for a in "$@"; do
		case "$a" in *[\ \"\{]*) line+=" '$a'" ;; *) line+=" $a" ;; esac
	done
	echo "$line"
	"$mt" "$@"
	echo
}
run -q -n 'fbt::vm_fault:entry { @[execname] = count(); } fbt::mach_msg_trap:entry /execname == "machload"/ { @q = quantize(arg2); } END { printa("%-12s %@d vm_faults\n", @); printa(@q); }'
run -q --workload 'rt=20000 pingpong=50' -n 'fbt::thread_invoke:entry { @[probefunc] = count(); } fbt::mach_msg_trap:entry { @calls = count(); }'
run -q --workload 'rt=100 pages=8' -n 'machload*:::round-trip { @rt = count(); } fbt::vm_fault:entry /execname == "machload"/ { @[ustack()] = count(); } END { printa("machload round trips (usdt): %@d\n", @rt); }'
run -q -n 'BEGIN { printf("hello from machtrace: %d + %d = %d\n", 1, 2, 1 + 2); exit(0); }'
run -q -n 'BEGIN { @[1] = quantize(7); exit(0); }'
run -q -n 'tick-10ms { @ticks = count(); @q = quantize(timestamp % 1000); } tick-200ms { exit(0); }'
run -q -n 'BEGIN { s = "GNU Mach"; printf("%s has %d chars, upper %s\n", s, strlen(s), toupper(s)); exit(0); }'
