#!/usr/bin/env bash
# -d on the live kernel: kinst::FUNC:entry/return of inlined functions,
# $N and $target are printed rewritten (the copies as
# kinst::CALLER:OFFSET, fbt's for an out-of-line copy), and the printed
# program compiles (-e) and runs with the same number of sites planted
# and the same counts as the program it came from.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-dump

cat >"$TMP/p.d" <<'D'
kinst::ipc_entry_lookup:entry, kinst::$2:entry /pid == $target || $1/ { @e = count(); }
kinst::ipc_entry_lookup:return, kinst::$2:return /pid == $target || $1/ { @r = count(); }
END { printa("entry %@d\n", @e); printa("return %@d\n", @r); }
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
if [ "$rc" = 0 ] && ! grep -q '\$\|kinst::ipc_entry_lookup:\|kinst::vm_map_unlock:' "$TMP/orig.dump" &&
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
workload_ok live-dump-workload-completes "$TMP/again.con"
