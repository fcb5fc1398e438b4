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
