#!/usr/bin/env bash
# Kernel C types for D: declarations generated from the kernel's DWARF
# (mt-live decls) compile, and D's sizeof/offsetof agree with the kernel's
# layout; a cast through them reads live kernel memory.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-ctypes

structs="ipc_port ipc_kmsg ipc_space ipc_entry ipc_pset ipc_object task thread vm_map
vm_object vm_page vm_map_entry percpu processor processor_set kmem_cache pcb
i386_interrupt_state i386_saved_state mach_msg_header timer host
mach_port_status ipc_mqueue ipc_kmsg_queue queue_entry list rbtree"
types=()
for s in $structs; do types+=("struct $s"); done
"$LIVE" decls "${types[@]}" >"$TMP/decls.d" 2>"$TMP/decls.err"
if [ ! -s "$TMP/decls.d" ]; then
	fail live-ctypes-decls "$(cat "$TMP/decls.err")"
	exit 0
fi
{
	cat "$TMP/decls.d"
	echo 'BEGIN {'
	for s in $structs; do echo "printf(\"$s %d\\n\", sizeof(struct $s));"; done
	echo 'printf("off %d %d %d %d\n", offsetof(struct ipc_kmsg, ikm_header),'
	echo '	offsetof(struct thread, task), offsetof(struct task, name), offsetof(struct ipc_port, ip_kobject));'
	echo 'exit(0); }'
} >"$TMP/sizes.d"
timeout 60 "$MACHTRACE" -q -s "$TMP/sizes.d" >"$TMP/sizes.out" 2>"$TMP/sizes.err"
"$LIVE" sizes $structs >"$TMP/kernel.sizes"
if [ -s "$TMP/kernel.sizes" ] && diff -u "$TMP/kernel.sizes" <(grep -v -e '^off ' -e '^$' "$TMP/sizes.out") >"$TMP/sizes.diff"; then
	pass live-ctypes-sizes
else
	fail live-ctypes-sizes "$(head -c 300 "$TMP/sizes.diff" "$TMP/sizes.err")"
fi
if grep -q "^off 32 24 296 48$" "$TMP/sizes.out"; then
	pass live-ctypes-offsets
else
	fail live-ctypes-offsets "$(grep '^off' "$TMP/sizes.out")"
fi

# the declarations in a kernel probe: the current task's name through a cast
d=$("$LIVE" decls "struct thread" "struct task")
live_run cast "rt=100 pingpong=0 pages=0 threads=0 tasks=0" \
	"$d fbt::mach_msg_trap:entry /((struct task *)((struct thread *)curthread)->task)->name[0] == 'm'/ { @[stringof(((struct task *)((struct thread *)curthread)->task)->name)] = count(); } END { printa(\"%s %@d\\n\", @); }" -q
n=$(sed -n 's/^machload \([0-9]*\)$/\1/p' "$TMP/cast.out")
if [ "${n:-0}" -ge 200 ]; then
	pass live-ctypes-cast-reads-kernel
else
	fail live-ctypes-cast-reads-kernel "$(head -c 300 "$TMP/cast.out" "$TMP/cast.err")"
fi
