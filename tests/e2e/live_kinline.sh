#!/usr/bin/env bash
# kinst::FUNC:entry/return of functions GNU Mach only inlines, against
# ground truth read by another tool: llvm-dwarfdump's inlined copies of
# FUNC (DW_TAG_inlined_subroutine, DW_AT_entry_pc), each probed on its
# own as kinst::CALLER:OFFSET (nm gives the caller) in the same run, and
# the out-of-line copy nm lists as fbt::FUNC:entry.  The exits of the
# copies the workload runs are exact, so :return equals :entry once the
# workload has ended (ipc_entry_lookup's copies in mach_msg_trap and
# ipc_kmsg_copyin_header have code before their entry or shared with
# other code, whose exits would count calls :entry did not); where an
# exit is not exact, -lv says so.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-kinline
if ! command -v llvm-dwarfdump >/dev/null || ! command -v nm >/dev/null; then
	echo "SKIP live-kinline: llvm-dwarfdump or nm missing"
	exit 0
fi

# "CALLER OFFSET" of each inlined copy of $1 whose entry is not its
# caller's first instruction (that one is fbt's entry site), one a line.
copies() {
	llvm-dwarfdump --debug-info "$KERNEL" 2>/dev/null |
	awk -v f="\"$1\")" '/DW_TAG_/ { want = 0 }
		/DW_TAG_inlined_subroutine/ { want = 1; next }
		want && /DW_AT_abstract_origin/ && $NF == f { hit = 1; next }
		hit && /DW_AT_entry_pc/ { gsub(/[()]/, "", $2); print $2; hit = 0 }' |
	sort -u >"$TMP/$1.pcs"
	nm -n "$KERNEL" | awk '$2 ~ /^[Tt]$/ { print $1, $3 }' >"$TMP/syms"
	python3 - "$TMP/$1.pcs" "$TMP/syms" <<'PY'
import sys
pcs = sorted(int(l, 16) for l in open(sys.argv[1]) if l.strip())
syms = [(int(a, 16), n) for a, n in (l.split() for l in open(sys.argv[2]))]
for pc in pcs:
    at = [(a, n) for a, n in syms if a <= pc]
    if at and pc > at[-1][0]:
        print(at[-1][1], pc - at[-1][0])
PY
}

for f in ipc_entry_lookup vm_map_unlock; do
	"$MACHTRACE" -lv -n "kinst::$f:entry" >"$TMP/$f.lv" 2>&1
	"$MACHTRACE" -lv -n "kinst::$f:return" >"$TMP/$f.rlv" 2>&1
	# copies -lv says cannot be traced (their caller is KDB's) are left out
	sed -n 's/.*copy at .* in \([a-z_0-9]*\): not traced: .*/\1/p' "$TMP/$f.lv" |
		sort -u >"$TMP/$f.untraced"
	copies "$f" | grep -vwFf "$TMP/$f.untraced" >"$TMP/$f.sites"
	ndw=$(wc -l <"$TMP/$f.pcs")
	n=$(wc -l <"$TMP/$f.sites")
	if [ "$n" = 0 ]; then
		fail "live-kinline-$f-copies" "llvm-dwarfdump found no inlined copy of $f"
		continue
	fi
	if grep -q "inlined copies" "$TMP/$f.lv" &&
	   [ "$(sed -n 's/.*Probe Sites ([0-9]*: \([0-9]*\) inlined copies.*/\1/p' "$TMP/$f.lv")" -ge "$ndw" ] &&
	   [ "$(grep -c ': entry of an inlined copy$' "$TMP/$f.lv")" = "$n" ]; then
		pass "live-kinline-$f-lists-copies"
	else
		fail "live-kinline-$f-lists-copies" "llvm-dwarfdump: $ndw copies, $n traceable; -lv: $(grep -E 'Probe Sites|not traced' "$TMP/$f.lv" | head -3 | tr '\n' ' ')"
	fi
	sites=$(awk '{ printf "%skinst::%s:%d", (NR > 1 ? ",\n" : ""), $1, $2 }' "$TMP/$f.sites")
	# the out-of-line copy, if the kernel has one, is fbt's
	grep -qx "$f" <(awk '{ print $2 }' "$TMP/syms") && sites="$sites,
fbt::$f:entry"
	prog="kinst::$f:entry { @e = count(); } kinst::$f:return { @r = count(); }
$sites { @k = count(); }
END { printa(\"entry %@d\\n\", @e); printa(\"return %@d\\n\", @r); printa(\"each %@d\\n\", @k); }"
	live_run "$f" "rt=50 pingpong=20 pages=16 threads=1 tasks=1" "$prog" -q
	rc=$?
	e=$(val entry "$TMP/$f.out")
	r=$(val return "$TMP/$f.out")
	k=$(val each "$TMP/$f.out")
	if [ "$rc" = 0 ] && [ -n "$e" ] && [ "$e" -gt 0 ] && [ "$e" = "$k" ]; then
		pass "live-kinline-$f-entry-equals-its-copies ($e)"
	else
		fail "live-kinline-$f-entry-equals-its-copies" "exit $rc, entry=${e:-none}, the $n copies one by one=${k:-none}: $(head -c 300 "$TMP/$f.err")"
	fi
	if [ -n "$r" ] && [ "$r" = "$e" ]; then
		pass "live-kinline-$f-return-equals-entry"
	else
		fail "live-kinline-$f-return-equals-entry" "entry=${e:-none} return=${r:-none}"
	fi
	workload_ok "live-kinline-$f-workload-completes" "$TMP/$f.con"
done

"$MACHTRACE" -lv -n 'kinst::ipc_entry_lookup:return' >"$TMP/ret.lv" 2>&1
if grep -q 'exit of the copy at' "$TMP/ret.lv" && grep -q inexact "$TMP/ret.lv"; then
	pass live-kinline-lv-says-inexact
else
	fail live-kinline-lv-says-inexact "$(head -c 300 "$TMP/ret.lv")"
fi

# More inlined functions on machload's paths, whose copies end in a call
# of a noreturn function (Assert) or its padding, leave by a jcc whose
# target other code shares, or jump out to where a jcc of the copy also
# leaves: each :return equals its :entry in a run that ends between calls.
W="rt=100 pingpong=20 pages=32 threads=2 tasks=2 ports=10 rpcs=10 forks=1 vmmaps=5 taskinfo=5"
prog="END { printa(\"%s %s %@d\\n\", @); }"
for f in ipc_entry_dealloc vm_map_reference rbtree_index; do
	prog="kinst::$f:entry { @[\"$f\", \"entry\"] = count(); }
kinst::$f:return { @[\"$f\", \"return\"] = count(); }
$prog"
done
live_run more "$W" "$prog" -q
rc=$?
workload_ok live-kinline-more-workload-completes "$TMP/more.con"
for f in ipc_entry_dealloc vm_map_reference rbtree_index; do
	e=$(awk -v f=$f '$1 == f && $2 == "entry" { print $3 }' "$TMP/more.out")
	r=$(awk -v f=$f '$1 == f && $2 == "return" { print $3 }' "$TMP/more.out")
	if [ $rc = 0 ] && [ "${e:-0}" -gt 0 ] && [ "$r" = "$e" ]; then
		pass "live-kinline-$f-return-equals-entry ($e)"
	else
		fail "live-kinline-$f-return-equals-entry" "exit $rc, entry=${e:-none} return=${r:-none}: $(head -c 300 "$TMP/more.err")"
	fi
done
