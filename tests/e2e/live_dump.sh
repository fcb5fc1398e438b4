#!/usr/bin/env bash
# -d on the live kernel: kinst::FUNC:entry/return of inlined functions,
# line probes, $N and $target are printed rewritten (the copies and the
# places of a line as kinst::CALLER:OFFSET, fbt's for an out-of-line
# copy), and the printed program compiles (-e) and runs with the same
# number of sites planted and the same counts as the program it came
# from, a clause reading locals-> at a line included.  The vm_fault line
# is read at test time from -lv: one in several places where
# locals->vaddr has a location; ipc_space.h's lines inside
# ipc_kmsg_copyin_header are those of its inlined copies.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-dump

# The first line of $1 (line:FILE:FUNC:) in two places or more where the
# clause $2 compiles, else nothing.
multi_line() {
	local l
	for l in $("$MACHTRACE" -lv -n "$1" 2>/dev/null |
		sed -n 's/^\tProbe Sites ([0-9]*: line \([0-9]*\) of .*/\1/p'); do
		if "$MACHTRACE" -e -n "$1$l $2" 2>/dev/null; then
			echo "$l"
			return
		fi
	done
}
VL=$(multi_line line:vm/vm_fault.c:vm_fault: '{ trace(locals->vaddr); }')
if [ -z "$VL" ]; then
	fail live-dump-lines "no line of vm_fault in several places has locals->vaddr"
	exit 0
fi
cat >"$TMP/p.d" <<'D'
kinst::ipc_entry_lookup:entry, kinst::$2:entry /pid == $target || $1/ { @e = count(); }
kinst::ipc_entry_lookup:return, kinst::$2:return /pid == $target || $1/ { @r = count(); }
fbt::vm_fault:entry { self->v = args[1]; }
fbt::vm_fault:return { self->v = 0; }
D
cat >>"$TMP/p.d" <<D
line:vm/vm_fault.c:vm_fault:$VL /self->v/ { @l = count(); @lv = sum(locals->vaddr == self->v); }
line:ipc/ipc_space.h:ipc_kmsg_copyin_header: { @i = count(); }
D
cat >>"$TMP/p.d" <<'D'
END { printa("entry %@d\n", @e); printa("return %@d\n", @r); }
END { printa("line %@d\n", @l); printa("vaddr %@d\n", @lv); printa("inl %@d\n", @i); }
D
W="machload rt=50 pingpong=20 pages=16 threads=1 tasks=1"
run() {	# name, program file, args...
	local name=$1 prog=$2
	shift 2
	MACHTRACE_LIVE_STATS=1 MACHTRACE_CONSOLE_LOG=$TMP/$name.con timeout 240 "$MACHTRACE" \
		--timeout 200 -q -c "$W" -o "$TMP/$name.out" -s "$prog" "$@" \
		>"$TMP/$name.dump" 2>"$TMP/$name.err"
}
sites() { sed -n 's/^machtrace: live: \([0-9]*\) sites.*/\1/p' "$1" | head -n 1; }

run orig "$TMP/p.d" -d 1 vm_map_unlock
rc=$?
if [ "$rc" = 0 ] && ! grep -q '\$\|kinst::ipc_entry_lookup:\|kinst::vm_map_unlock:\|^line:' "$TMP/orig.dump" &&
   [ "$(grep -c '^kinst::vm_fault:[0-9]*[,{ ]' "$TMP/orig.dump")" -ge 2 ] &&
   grep -q '^kinst::ipc_kmsg_copyin_header:[0-9]*,$' "$TMP/orig.dump" &&
   grep -q 'fbt::vm_map_unlock:entry,$' "$TMP/orig.dump" &&
   grep -q '/pid == 1 || 1/' "$TMP/orig.dump"; then
	pass live-dump-rewrites
else
	fail live-dump-rewrites "exit $rc: $(head -c 300 "$TMP/orig.dump") $(head -c 300 "$TMP/orig.err")"
fi
if "$MACHTRACE" -e -s "$TMP/orig.dump" >"$TMP/e.out" 2>&1; then
	pass live-dump-compiles
else
	fail live-dump-compiles "$(head -c 300 "$TMP/e.out")"
fi
run again "$TMP/orig.dump"
s1=$(sites "$TMP/orig.err") s2=$(sites "$TMP/again.err")
if [ -n "$s1" ] && [ "$s1" = "$s2" ]; then
	pass "live-dump-same-sites ($s1)"
else
	fail live-dump-same-sites "the program planted ${s1:-none} sites, its -d output ${s2:-none}: $(head -c 300 "$TMP/again.err")"
fi
e1=$(val entry "$TMP/orig.out") e2=$(val entry "$TMP/again.out")
r1=$(val return "$TMP/orig.out") r2=$(val return "$TMP/again.out")
if [ -n "$e1" ] && [ "$e1" -gt 0 ] && [ "$e1" = "$e2" ] && [ -n "$r1" ] && [ "$r1" = "$r2" ]; then
	pass "live-dump-same-counts ($e1 $r1)"
else
	fail live-dump-same-counts "entry ${e1:-none}/${e2:-none}, return ${r1:-none}/${r2:-none}"
fi
l1=$(val line "$TMP/orig.out") l2=$(val line "$TMP/again.out")
v1=$(val vaddr "$TMP/orig.out") v2=$(val vaddr "$TMP/again.out")
i1=$(val inl "$TMP/orig.out") i2=$(val inl "$TMP/again.out")
if [ -n "$l1" ] && [ "$l1" -gt 0 ] && [ "$l1" = "$l2" ] && [ "$v1" = "$l1" ] && [ "$v2" = "$l2" ] &&
   [ -n "$i1" ] && [ "$i1" -gt 0 ] && [ "$i1" = "$i2" ]; then
	pass "live-dump-same-line-counts (vm_fault:$VL $l1, locals->vaddr right $v1; ipc_space.h $i1)"
else
	fail live-dump-same-line-counts "vm_fault:$VL ${l1:-none}/${l2:-none}, vaddr right ${v1:-none}/${v2:-none}, ipc_space.h ${i1:-none}/${i2:-none}"
fi
workload_ok live-dump-workload-completes "$TMP/again.con"
