#!/usr/bin/env bash
# line:FILE:FUNC:N fires at the first instruction of source line N (the
# kernel's DWARF line table).  -l lists vm_fault's lines, read at test time
# (no line number of one build is written here); with pages=P machload
# takes at least P faults: vm_fault's first line (its entry) fires as
# often as fbt::vm_fault:entry, and lines run once per call as often too;
# locals->vaddr at such lines equals args[1] saved at vm_fault's entry.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-line

P=200
"$MACHTRACE" -l -n 'line:vm/vm_fault.c:vm_fault:' >"$TMP/list.out" 2>"$TMP/list.err"
lines=$(awk 'NR > 1 && $2 == "line" && $3 == "vm/vm_fault.c" && $4 == "vm_fault" { print $5 }' \
	"$TMP/list.out" | sort -n)
n=$(echo $lines | wc -w)
if [ "$n" -ge 10 ] && [ "$n" = $(($(wc -l <"$TMP/list.out") - 1)) ]; then
	pass live-line-list
else
	fail live-line-list "$n lines: $(head -c 300 "$TMP/list.err")"
	exit 0
fi
first=$(echo $lines | awk '{ print $1 }')

live_run count "pages=$P rt=0 pingpong=0 threads=0 tasks=0" \
	'fbt::vm_fault:entry /execname == "machload"/ { @["entry"] = count(); }
line:vm/vm_fault.c:vm_fault: /execname == "machload"/ { @[probename] = count(); }' -q
rc=$?
workload_ok live-line-workload-completes "$TMP/count.con"
entries=$(awk '$1 == "entry" { print $2 }' "$TMP/count.out")
atfirst=$(awk -v l="$first" '$1 == l { print $2 }' "$TMP/count.out")
once=$(awk -v n="${entries:-x}" '$1 ~ /^[0-9]+$/ && $2 == n' "$TMP/count.out" | wc -l)
if [ $rc = 0 ] && [ "${entries:-0}" -ge $P ] && [ "${atfirst:-0}" = "$entries" ]; then
	pass live-line-first-line-is-entry
else
	fail live-line-first-line-is-entry "exit $rc, vm_fault:entry ${entries:-0} (want >= $P), line $first ${atfirst:-0}: $(head -c 300 "$TMP/count.err")"
fi
if [ $rc = 0 ] && [ "$once" -ge 5 ]; then
	pass live-line-once-per-fault
else
	fail live-line-once-per-fault "$once lines fired $entries times"
fi

# locals at line probes: vaddr at lines run once per call is args[1]
sel=""
for l in $(awk -v n="${entries:-x}" '$1 ~ /^[0-9]+$/ && $2 == n { print $1 }' "$TMP/count.out" | sort -rn); do
	"$MACHTRACE" -e -n "line:vm/vm_fault.c:vm_fault:$l { trace(locals->vaddr); }" 2>/dev/null ||
		continue
	sel="$sel $l"
	[ $(echo $sel | wc -w) -ge 3 ] && break
done
prog='fbt::vm_fault:entry { self->v = args[1]; } fbt::vm_fault:return { self->v = 0; }'
for l in $sel; do
	prog="$prog
line:vm/vm_fault.c:vm_fault:$l /self->v/ { @[probename, locals->vaddr == self->v] = count(); }"
done
live_run loc "pages=$P rt=0 pingpong=0 threads=0 tasks=0" "$prog" -q
rc=$?
good=$(awk '$2 == 1 && $3 > 0 { n++ } END { print n + 0 }' "$TMP/loc.out")
wrong=$(awk '$2 == 0' "$TMP/loc.out")
if [ -n "$sel" ] && [ $rc = 0 ] && [ "$good" = $(echo $sel | wc -w) ] && [ -z "$wrong" ]; then
	pass live-line-locals
else
	fail live-line-locals "lines$sel, exit $rc, $good agree, disagreeing: $wrong $(head -c 300 "$TMP/loc.err")"
fi

"$MACHTRACE" -e -n 'line:vm/vm_fault.c:vm_fault:999999 { }' >/dev/null 2>"$TMP/none.err"
rc=$?
if [ $rc = 1 ] && grep -q "does not match any probes" "$TMP/none.err"; then
	pass live-line-no-such-line
else
	fail live-line-no-such-line "exit $rc: $(head -c 300 "$TMP/none.err")"
fi
