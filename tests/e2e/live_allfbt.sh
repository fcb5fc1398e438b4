#!/usr/bin/env bash
# Every fbt entry and return probe of the kernel enabled at once: the
# workload still completes with correct output, and afterwards the kernel
# text is byte-identical to the image again.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-allfbt

words="rt=300 pingpong=20 pages=64 threads=2 tasks=2"
prog='fbt:::entry { @e = count(); } fbt:::return { @r = count(); }
END { printa("entries %@d\n", @e); printa("returns %@d\n", @r); }'
MACHTRACE_TEXTCHECK=1 live_run allfbt "$words" "$prog" -q
rc=$?
e=$(val entries "$TMP/allfbt.out"); r=$(val returns "$TMP/allfbt.out")
if [ $rc = 0 ] && [ "${e:-0}" -gt 10000 ] && [ "${r:-0}" -gt 10000 ]; then
	pass live-allfbt-fires
else
	fail live-allfbt-fires "exit $rc, entries=${e:-none} returns=${r:-none}: $(head -c 300 "$TMP/allfbt.err")"
fi
workload_ok live-allfbt-workload-completes "$TMP/allfbt.con"
for phase in "rt n=300 ok=300" "pingpong n=20 ok=20" "pages n=64 ok=64" "threads n=2 ok=2" "tasks n=2 ok=2"; do
	grep -q "^machload: $phase .*OK$" "$TMP/allfbt.con" || { fail live-allfbt-workload-output "no '$phase' line"; break; }
done && pass live-allfbt-workload-output
listed=$("$MACHTRACE" -l -n 'fbt:::' 2>/dev/null | tail -n +2 | wc -l)
if [ "$listed" -gt 1500 ]; then
	pass live-allfbt-probe-count
else
	fail live-allfbt-probe-count "machtrace -l lists $listed fbt probes"
fi
if grep -q "kernel text identical to the image" "$TMP/allfbt.err"; then
	pass live-allfbt-text-restored
else
	fail live-allfbt-text-restored "$(grep 'kernel text' "$TMP/allfbt.err")"
fi

# Every fbt probe with two clauses, one a printf into a 4k buffer, on both
# engines: each firing's record is printed or counted as a drop, exactly.
# The compiled engine fits every such probe; with six clauses the code of
# some does not fit the trampoline area: they keep the interpreter (said
# under -v) and the numbers stay exact.
clause='fbt:::entry, fbt:::return { printf("x\n"); }'
head='fbt:::entry, fbt:::return { @n = count(); }'
tail='END { printa("n %@d\n", @n); }'
exact() {	# test name, run name, printf clauses
	local n x d
	n=$(val n "$TMP/$2.out")
	x=$(grep -c '^x$' "$TMP/$2.out")
	d=$(awk '/drops? on CPU/ { s += $2 } END { print s + 0 }' "$TMP/$2.err")
	if [ "${n:-0}" -gt 10000 ] && [ $((x + d)) = $((n * $3)) ]; then
		pass "$1"
	else
		fail "$1" "printed $x + dropped $d != $3 x count ${n:-none}: $(grep -v " on CPU " "$TMP/$2.err" | head -c 300)"
	fi
}
for engine in interpreted compiled; do
	if [ $engine = interpreted ]; then export MACHTRACE_NOJIT=1; else unset MACHTRACE_NOJIT; fi
	MACHTRACE_JIT_STATS=$TMP/stats-$engine \
		live_run two-$engine "$words" "$head $clause $tail" -q -v -x bufsize=4k
	exact live-allfbt-two-clauses-exact-$engine two-$engine 1
done
if [ -n "$(val n "$TMP/two-compiled.out")" ] && [ -s "$TMP/stats-compiled" ] &&
   ! grep -q "does not fit" "$TMP/stats-compiled" &&
   ! grep -q "run the interpreter" "$TMP/two-compiled.err"; then
	pass live-allfbt-two-clauses-all-compiled
else
	fail live-allfbt-two-clauses-all-compiled "$(grep -c 'does not fit' "$TMP/stats-compiled") probes' code did not fit"
fi
live_run six "$words" "$head $clause $clause $clause $clause $clause $tail" -q -v -x bufsize=4k
exact live-allfbt-six-clauses-exact six 5
if grep -q "probe sites run the interpreter: their compiled code does not fit" "$TMP/six.err"; then
	pass live-allfbt-nofit-said
else
	fail live-allfbt-nofit-said "no -v note: $(grep -v " on CPU " "$TMP/six.err" | head -c 300)"
fi
