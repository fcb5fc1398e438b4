#!/usr/bin/env bash
# Kernel-typed args[] as dtrace treats them (issue 7 items 9-11):
# - a constant args[N] beyond the function's arguments is D_ARGS_IDX at
#   compile time (vm_fault has 6; args[6] used to read a stale slot);
# - printf("%s") of a char * prints the string (dev_name_lookup's name),
#   not the pointer;
# - kernel types that meet compile (thread_t then struct task: "type
#   redeclared: struct queue_entry" before), and a struct reached as a
#   pointee (*args[0] of task_create) is complete: sizeof agrees with the
#   kernel's DWARF (mt-live sizes), print() shows its members, an
#   aggregation keyed by it has its bytes.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-typing

compile() {	# name expected-rc stderr-pattern program
	"$MACHTRACE" -e -xerrtags -n "$4" >"$TMP/$1.out" 2>"$TMP/$1.err"
	local rc=$?
	if [ $rc = "$2" ] && { [ -z "$3" ] || grep -q -- "$3" "$TMP/$1.err"; }; then
		pass "live-typing-$1"
	else
		fail "live-typing-$1" "exit $rc: $(head -c 300 "$TMP/$1.err")"
	fi
}
compile args6 1 '\[D_ARGS_IDX\] line 1: index 6 is out of range for fbt::vm_fault:entry args\[ \]' \
	'fbt::vm_fault:entry { trace(args[6]); }'
compile args9 1 '\[D_ARGS_IDX\] line 1: index 9 is out of range for fbt::vm_fault:entry args\[ \]' \
	'fbt::vm_fault:entry { trace(args[9]); }'
compile return-args2 1 '\[D_ARGS_IDX\] .*fbt::vm_fault:return args' \
	'fbt::vm_fault:return { trace(args[2]); }'
compile args5 0 '' 'fbt::vm_fault:entry { trace(args[5]); } fbt::vm_fault:return { trace(args[1]); }'
compile types-meet 0 '' \
	'fbt::thread_invoke:entry { @[stringof(args[2]->task->name)] = count(); }'
compile pointee-sizeof-compiles 0 '' \
	'fbt::task_create:entry { trace(sizeof(*args[0])); trace(sizeof(struct task)); }'

size=$("$LIVE" sizes task | sed -n 's/^task \([0-9]*\)$/\1/p')
prog='fbt::dev_name_lookup:entry { printf("name [%s]\n", args[0]); }
fbt::task_create:entry /!done/ { done = 1;
	printf("sz %d %d\n", sizeof(*args[0]), sizeof(struct task));
	print(*args[0]); @k[*args[0]] = count(); }
fbt::thread_invoke:entry { @t[stringof(args[2]->task->name)] = count(); }
END { printa("task %s %@d\n", @t); printa(@k); }'
live_run typing "rt=10 pingpong=0 pages=0 threads=0 tasks=2" "$prog" -q
rc=$?
workload_ok live-typing-workload-completes "$TMP/typing.con"
names=$(grep -c '^name \[[A-Za-z][A-Za-z0-9_]*\]$' "$TMP/typing.out")
numbers=$(grep -c '^name \[-\{0,1\}[0-9][0-9]*\]$' "$TMP/typing.out")
if [ $rc = 0 ] && [ "$names" -ge 1 ] && [ "$numbers" = 0 ]; then
	pass live-typing-printf-charptr
else
	fail live-typing-printf-charptr "exit $rc, $names names, $numbers numbers: $(grep '^name' "$TMP/typing.out" | head -3 | tr '\n' ' ') $(head -c 200 "$TMP/typing.err")"
fi
if [ -n "$size" ] && grep -q "^sz $size $size$" "$TMP/typing.out"; then
	pass live-typing-pointee-sizeof
else
	fail live-typing-pointee-sizeof "kernel says $size: $(grep '^sz' "$TMP/typing.out")"
fi
if grep -q '^ *(struct task) {$' "$TMP/typing.out" && grep -q '^ *\.ref_count = (int)' "$TMP/typing.out" &&
   grep -q '^ *\.name = (char \[32\])' "$TMP/typing.out"; then
	pass live-typing-print-members
else
	fail live-typing-print-members "$(grep -A3 'struct task' "$TMP/typing.out" | head -5 | tr '\n' ' ')"
fi
# the aggregation key is the struct's bytes: its hex dump ends at the
# struct's size (328 = 0x148: the last row starts at 0x140)
if [ -n "$size" ] && grep -q "^ *$(printf '%x' $(( (size - 1) / 16 * 16 ))): " "$TMP/typing.out"; then
	pass live-typing-struct-key
else
	fail live-typing-struct-key "no hex dump of a $size-byte key"
fi
n=$(sed -n 's/^task machload \([0-9][0-9]*\)$/\1/p' "$TMP/typing.out")
if [ "${n:-0}" -ge 1 ]; then
	pass live-typing-types-meet-live
else
	fail live-typing-types-meet-live "$(grep '^task' "$TMP/typing.out" | head -3 | tr '\n' ' ')"
fi
