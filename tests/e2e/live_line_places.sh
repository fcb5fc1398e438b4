#!/usr/bin/env bash
# A source line the compiler put in several places of one function (a
# loop's test and increment, two inlined copies) fires at each:
# line:FILE:FUNC:N counts what independent kinst::FUNC:OFFSET probes count
# at every place, read at test time from llvm-dwarfdump's line table (the
# first row beginning a statement in each run of rows of that line, as
# docs/providers.md defines them); -lv lists as many sites.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-line-places
if ! command -v llvm-dwarfdump >/dev/null || ! command -v nm >/dev/null; then
	echo "SKIP live-line-places: llvm-dwarfdump or nm missing"
	exit 0
fi
F=vm_page_table_index

# "LINE OFF1 OFF2 ..." for each line of F in more than one place
range=$(nm -S "$KERNEL" | awk -v f="$F" '$4 == f { print $1, $2 }')
set -- $range
llvm-dwarfdump --debug-line "$KERNEL" 2>/dev/null >"$TMP/lines"
python3 - "$TMP/lines" "$1" "$2" >"$TMP/places" <<'PY'
import sys
lo = int(sys.argv[2], 16)
hi = lo + int(sys.argv[3], 16)
key, taken, offs, files = None, False, {}, {}
for row in open(sys.argv[1]):
    f = row.split()
    if not f or not f[0].startswith("0x") or len(f) < 4:
        continue
    a = int(f[0], 16)
    if a < lo or a >= hi:
        key = None
        continue
    k = (f[3], int(f[1]))
    if k != key:
        key, taken = k, False
    if taken or "is_stmt" not in f:
        continue
    taken = True
    files.setdefault(k[1], set()).add(k[0])
    if a - lo not in offs.setdefault(k, []):
        offs[k].append(a - lo)
for (fi, line), v in sorted(offs.items(), key=lambda x: x[0][1]):
    if len(v) > 1 and len(files[line]) == 1:
        print(line, *v)
PY
if [ ! -s "$TMP/places" ]; then
	echo "SKIP live-line-places: no line of $F in two places in this kernel"
	exit 0
fi

prog=""
while read -r line offs; do
	k=""
	for o in $offs; do k="$k${k:+, }kinst::$F:$o"; done
	prog="$prog
line::$F:$line { @l[$line] = count(); }
$k { @k[$line] = count(); }
kinst::$F:${offs%% *} { @first[$line] = count(); }"
	n=$(echo $offs | wc -w)
	m=$("$MACHTRACE" -lv -n "line::$F:$line" 2>/dev/null | grep -c "^		$F+0x")
	if [ "$m" = "$n" ]; then
		pass "live-line-places-lv-$line ($n)"
	else
		fail "live-line-places-lv-$line" "-lv lists $m sites, llvm-dwarfdump $n ($offs)"
	fi
done <"$TMP/places"
prog="$prog
END { printa(\"line %d %@d\\n\", @l); printa(\"kinst %d %@d\\n\", @k);
	printa(\"first %d %@d\\n\", @first); }"
live_run run "" "$prog" -q
rc=$?
workload_ok live-line-places-workload-completes "$TMP/run.con"
bad="" beyond=0
while read -r line offs; do
	l=$(awk -v n=$line '$1 == "line" && $2 == n { print $3 }' "$TMP/run.out")
	k=$(awk -v n=$line '$1 == "kinst" && $2 == n { print $3 }' "$TMP/run.out")
	f=$(awk -v n=$line '$1 == "first" && $2 == n { print $3 }' "$TMP/run.out")
	[ "${l:-0}" = "${k:-0}" ] || bad="$bad $line: line ${l:-0} kinst ${k:-0};"
	[ "${k:-0}" -gt "${f:-0}" ] && beyond=$((beyond + 1))
done <"$TMP/places"
if [ $rc = 0 ] && [ -z "$bad" ] && [ $beyond -gt 0 ]; then
	pass "live-line-places-fire-at-each ($(tr '\n' ';' <"$TMP/places"))"
else
	fail live-line-places-fire-at-each "exit $rc,$bad lines whose later places ran: $beyond: $(head -c 300 "$TMP/run.err")"
fi
