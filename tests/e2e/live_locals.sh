#!/usr/bin/env bash
# locals->NAME reads a local variable or parameter of the function at an
# fbt entry or kinst site from its DWARF location there.  Ground truth by
# other routes: at vm_fault's entry locals->map/vaddr equal args[0]/[1]
# (and regs[15], rsp there, holds the return address, caller);
# at mid-function kinst sites that run once per call (found at test time:
# as many firings as vm_fault:entry) locals->vaddr equals args[1] saved at
# entry and vm:::fault's address; a local with no location at a site is a
# compile-time error naming FUNC+OFF.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-locals

W="pages=200 rt=0 pingpong=0 threads=0 tasks=0"

# vm_fault's instructions that run exactly once per call, deepest first
live_run hot "$W" 'fbt::vm_fault:entry { @["entry"] = count(); }
kinst::vm_fault: { @[probename] = count(); }' -q
entries=$(awk '$1 == "entry" { print $2 }' "$TMP/hot.out")
offs=$(awk -v n="${entries:-0}" '$1 ~ /^[0-9]+$/ && $2 == n { print $1 }' "$TMP/hot.out" |
	sort -rn)
sites=""
for o in $offs; do
	"$MACHTRACE" -e -n "kinst::vm_fault:$o { trace(locals->vaddr); }" 2>/dev/null ||
		continue
	sites="$sites $o"
	[ $(echo $sites | wc -w) -ge 4 ] && break
done
if [ "${entries:-0}" -le 0 ] || [ -z "$sites" ]; then
	fail live-locals-sites "entries ${entries:-0}, no once-per-call site with vaddr: $(head -c 300 "$TMP/hot.err")"
	exit 0
fi

prog='fbt::vm_fault:entry { self->v = args[1];
	@e[locals->vaddr == args[1] && locals->map == args[0] &&
	   *(uint64_t *)regs[15] == caller] = count(); }
vm:::fault { self->a = args[0]; }
fbt::vm_fault:entry { self->f = self->a; self->a = 0; }
fbt::vm_fault:return { self->v = 0; self->f = 0; }'
for o in $sites; do
	prog="$prog
kinst::vm_fault:$o /self->v/ { @k[probename, locals->vaddr == self->v] = count(); }
kinst::vm_fault:$o /self->f/ { @f[probename, locals->vaddr == self->f] = count(); }"
done
# one clause at entry and every site: vaddr moves from rsi to where the
# body keeps it, so the clause selects a location per firing probe
multi="fbt::vm_fault:entry"
for o in $sites; do multi="$multi, kinst::vm_fault:$o"; done
prog="$prog
$multi /self->v/ { @m[probename, locals->vaddr == self->v] = count(); }
END { printa(\"entry %d %@d\n\", @e); printa(\"kinst %s %d %@d\n\", @k);
	printa(\"multi %s %d %@d\n\", @m);
	printa(\"fault %s %d %@d\n\", @f); }"
live_run vals "$W" "$prog" -q
rc=$?
workload_ok live-locals-workload-completes "$TMP/vals.con"
ok=$(awk '$1 == "entry" && $2 == 1 { print $3 }' "$TMP/vals.out")
bad=$(awk '$1 == "entry" && $2 == 0 { print $3 }' "$TMP/vals.out")
if [ $rc = 0 ] && [ "${ok:-0}" -ge 200 ] && [ -z "$bad" ]; then
	pass live-locals-params-at-entry
else
	fail live-locals-params-at-entry "exit $rc, equal ${ok:-0}, different ${bad:-0}: $(head -c 300 "$TMP/vals.err")"
fi
good=$(awk '$1 == "multi" && $3 == 1 { n++ } END { print n + 0 }' "$TMP/vals.out")
wrong=$(awk '$1 == "multi" && $3 == 0' "$TMP/vals.out")
if [ $rc = 0 ] && [ "$good" = $(($(echo $sites | wc -w) + 1)) ] && [ -z "$wrong" ]; then
	pass live-locals-one-clause-many-sites
else
	fail live-locals-one-clause-many-sites "exit $rc, sites entry$sites: $good agree, disagreeing: $wrong: $(head -c 300 "$TMP/vals.err")"
fi
for what in kinst fault; do
	good=$(awk -v w=$what '$1 == w && $3 == 1 { n++ } END { print n + 0 }' "$TMP/vals.out")
	wrong=$(awk -v w=$what '$1 == w && $3 == 0' "$TMP/vals.out")
	if [ $rc = 0 ] && [ "$good" = $(echo $sites | wc -w) ] && [ -z "$wrong" ]; then
		pass live-locals-vaddr-$what
	else
		fail live-locals-vaddr-$what "sites$sites: $good agree, disagreeing: $wrong"
	fi
done

# a local of vm_fault's body has no location yet at its first instruction
for v in kr m result object_lock_result page_exists; do
	"$MACHTRACE" -e -n "fbt::vm_fault:entry { trace(locals->$v); }" >/dev/null 2>"$TMP/opt.err"
	rc=$?
	grep -q "optimized out" "$TMP/opt.err" && break
done
if [ $rc = 1 ] && grep -q "line 1: locals->$v: optimized out at vm_fault+0x0$" "$TMP/opt.err"; then
	pass live-locals-optimized-out
else
	fail live-locals-optimized-out "exit $rc: $(head -c 300 "$TMP/opt.err")"
fi
"$MACHTRACE" -e -n 'fbt::vm_fault:entry { trace(locals->no_such_local); }' >/dev/null 2>"$TMP/none.err"
rc=$?
if [ $rc = 1 ] && grep -q "no local variable or parameter no_such_local at vm_fault+0x0" "$TMP/none.err"; then
	pass live-locals-unknown
else
	fail live-locals-unknown "exit $rc: $(head -c 300 "$TMP/none.err")"
fi

# An unknown local is an undefined name: the predicate is cooked first
# (as for an unknown variable) and its own error is the one reported
"$MACHTRACE" -e -n 'fbt::vm_fault:entry /1 / 0/ { trace(locals->no_such_local); }' \
	>/dev/null 2>"$TMP/pred.err"
rc=$?
if [ $rc = 1 ] && grep -q "division by zero" "$TMP/pred.err"; then
	pass live-locals-unknown-predicate-first
else
	fail live-locals-unknown-predicate-first "exit $rc: $(head -c 300 "$TMP/pred.err")"
fi

# locals->NAME as an argument of a list keeps the arguments after it
if "$MACHTRACE" -e -n 'fbt::vm_fault:entry { printf("%x %x\n", locals->vaddr, args[1]); }' \
	>/dev/null 2>"$TMP/list.err"; then
	pass live-locals-in-argument-list
else
	fail live-locals-in-argument-list "$(head -c 300 "$TMP/list.err")"
fi

# print(locals) prints each located local as a member of a struct, typed;
# at vm_fault's entry vaddr (and map) are its parameters: the members
# print()'s output gives must equal args[] printed beside it
live_run print "pages=4 rt=0 pingpong=0 threads=0 tasks=0" 'fbt::vm_fault:entry /++n <= 3/ {
	print(locals); printf("\nargs 0x%x %d\n", args[0], args[1]); }' -q
rc=$?
member() {	# the values print() gave member $1 of type $2
	awk -v m="$1" -v t="($2)" '$1 == "." m && $2 == "=" && index($3, t) == 1 {
		v = substr($3, length(t) + 1); sub(/,$/, "", v); print v }' "$TMP/print.out" | tr '\n' ' '
}
pv=$(member vaddr vm_offset_t)
pm=$(member map vm_map_t)
av=$(awk '$1 == "args" { print $3 }' "$TMP/print.out" | tr '\n' ' ')
am=$(awk '$1 == "args" { print $2 }' "$TMP/print.out" | tr '\n' ' ')
heads=$(grep -c '^ *(struct locals_vm_fault_0x0) {$' "$TMP/print.out")
if [ $rc = 0 ] && [ "$heads" = 3 ] && [ -n "$pv" ] && [ "$pv" = "$av" ] && [ "$pm" = "$am" ]; then
	pass live-locals-print-locals
else
	fail live-locals-print-locals "exit $rc, $heads structs, vaddr: ${pv:-none} / args[1]: ${av:-none}, map: ${pm:-none} / args[0]: ${am:-none}: $(head -c 300 "$TMP/print.err")"
fi
# a function entry where no local has a location (found at test time):
# print(locals) there is a compile-time error naming the site
for f in $("$MACHTRACE" -l -n 'fbt:::entry' 2>/dev/null | awk 'NR > 1 { print $4 }' | head -n 400); do
	"$MACHTRACE" -e -n "fbt::$f:entry { print(locals); }" >/dev/null 2>"$TMP/pl.err" && continue
	grep -q 'has a location' "$TMP/pl.err" && break
done
if grep -q "line 1: print(locals): no local variable or parameter has a location at $f+0x0$" "$TMP/pl.err"; then
	pass "live-locals-print-none-located ($f)"
else
	fail live-locals-print-none-located "$(head -c 300 "$TMP/pl.err")"
fi

# A loop counter: vm_page_table_index walks vm_page_segs with i from 0
# until the segment holding the address.  Its lines where locals->i has
# a location are read at test time; at each firing i must equal the
# number of earlier firings of that line in the same call (0, 1, .. n-1)
# at the lines inside the loop (more firings than calls, i >= 1), and
# there must be one.
F=vm_page_table_index
lines=""
for l in $("$MACHTRACE" -l -n "line::$F:" 2>/dev/null | awk 'NR > 1 { print $5 }'); do
	"$MACHTRACE" -e -n "line::$F:$l { trace(locals->i); }" 2>/dev/null && lines="$lines $l"
done
if [ -z "$lines" ]; then
	echo "SKIP live-locals-loop-counter: no line of $F where locals->i has a location"
	exit 0
fi
prog="fbt::$F:entry { @c[\"calls\"] = count(); self->in = 1;"
for l in $lines; do prog="$prog n[tid, \"$l\"] = 0;"; done
prog="$prog }
fbt::$F:return { self->in = 0; }"
for l in $lines; do
	prog="$prog
line::$F:$l /self->in/ { @s[probename, locals->i == n[tid, probename]] = count();
	@c[probename] = count(); @m[probename] = max(locals->i); n[tid, probename]++; }"
done
prog="$prog
END { printa(\"seq %s %d %@d\n\", @s); printa(\"count %s %@d\n\", @c);
	printa(\"max %s %@d\n\", @m); }"
live_run loop "" "$prog" -q
rc=$?
calls=$(awk '$1 == "count" && $2 == "calls" { print $3 }' "$TMP/loop.out")
inloop=$(awk -v c="${calls:-0}" 'FNR == NR && $1 == "count" && $3 > c { f[$2] = 1 }
	FNR != NR && $1 == "max" && f[$2] && $3 >= 1 { print $2 }' "$TMP/loop.out" "$TMP/loop.out")
wrong=$(awk -v l=" $(echo $inloop) " '$1 == "seq" && $3 == 0 && index(l, " " $2 " ")' "$TMP/loop.out")
if [ $rc = 0 ] && [ "${calls:-0}" -gt 0 ] && [ -n "$inloop" ] && [ -z "$wrong" ]; then
	pass live-locals-loop-counter
else
	fail live-locals-loop-counter "exit $rc, $F lines$lines, ${calls:-0} calls, in the loop: ${inloop:-none}, out of order: $wrong $(head -c 300 "$TMP/loop.err")"
fi

