#!/usr/bin/env bash
# report: machtrace report on a trace recorded on the live kernel loads in
# headless Chromium (tests/e2e/report_page.js, the DevTools protocol) with
# no console error, no exception and no request beyond the page itself;
# the page shows machload's threads on the timeline, and the counts it
# shows equal babeltrace2's reading of the same trace (every event name,
# sched_switch, profile samples) and machload's own (rpcs=R machload_echo
# RPCs, each timed from request to reply).  A trace without ipc events
# and stacks gets a page that says so in those sections.
# MT_REPORT_SCREENSHOT=FILE keeps the page's screenshot (docs/report.png).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-report
for cmd in babeltrace2 node chromium; do
	if ! command -v $cmd >/dev/null; then
		echo "SKIP live-report: $cmd is not installed (make setup)"
		exit 0
	fi
done


# page_val KIND KEY...: the value a report_page.js line gives
page_val() {
	case $1 in
	text) sed -n "s/^text $2 \(.*\)$/\1/p" "$TMP/page.txt" ;;
	cells) sed -n "s/^cells $2 $3 \(.*\)$/\1/p" "$TMP/page.txt" ;;
	esac | head -n 1
}

R=12
rec_run rec "rpcs=$R threads=2 tasks=1 rt=400" 'profile-997 { stack(); }' \
	-q --mach -o "$TMP/trace" --events sched,ipc,proc,trap
rc=$?
workload_ok live-report-workload-completes "$TMP/rec.con"
babeltrace2 "$TMP/trace" >"$TMP/bt.out" 2>"$TMP/bt.err"
"$MACHTRACE" report "$TMP/trace" -o "$TMP/report.html" 2>"$TMP/report.err"
rrc=$?
node "$(dirname "$0")/report_page.js" "$TMP/report.html" "$TMP/report.png" \
	>"$TMP/page.txt" 2>"$TMP/page.err"
prc=$?
if [ $rc = 0 ] && [ $rrc = 0 ] && [ $prc = 0 ] && ! grep -q '^error ' "$TMP/page.txt" &&
   grep -q '^rendered 1$' "$TMP/page.txt"; then
	pass live-report-loads-without-console-errors
else
	fail live-report-loads-without-console-errors "record $rc, report $rrc $(head -c 200 "$TMP/report.err"), page $prc: $(grep -E '^(error|rendered)' "$TMP/page.txt" | head -n 3 | tr '\n' ' ') $(head -c 200 "$TMP/page.err")"
fi
if [ -s "$TMP/report.html" ] && ! grep -q '^request ' "$TMP/page.txt"; then
	pass live-report-self-contained
else
	fail live-report-self-contained "$(grep '^request ' "$TMP/page.txt" | head -n 3 | tr '\n' ' ')"
fi
if grep -q '^lanes machload \[[0-9]*\]$' "$TMP/page.txt"; then
	pass live-report-task-names
else
	fail live-report-task-names "timeline lanes: $(grep '^lanes ' "$TMP/page.txt" | head -n 5 | tr '\n' ' ')"
fi

# every event name: the page's count is babeltrace2's
sed -n 's/^\[[^]]*\] ([^)]*) [^ ]* \([^ ]*\): { cpu_id .*/\1/p' "$TMP/bt.out" |
	sort | uniq -c | awk '{ print $2, $1 }' | sort >"$TMP/bt.counts"
sed -n 's/^cells data-event \([^ ]*\) \([0-9]*\)$/\1 \2/p' "$TMP/page.txt" | sort >"$TMP/page.counts"
if [ -s "$TMP/bt.counts" ] && cmp -s "$TMP/bt.counts" "$TMP/page.counts"; then
	pass live-report-event-counts-equal-babeltrace2
else
	fail live-report-event-counts-equal-babeltrace2 "$(diff "$TMP/bt.counts" "$TMP/page.counts" | head -n 6 | tr '\n' ' ')"
fi
nsw=$(grep -c '^sched_switch ' "$TMP/bt.counts" >/dev/null && sed -n 's/^sched_switch //p' "$TMP/bt.counts")
if [ -n "$nsw" ] && [ "$nsw" -gt 0 ] && [ "$(page_val text n-switches)" = "$nsw" ]; then
	pass live-report-sched-switch-count
else
	fail live-report-sched-switch-count "page $(page_val text n-switches), babeltrace2 ${nsw:-none}"
fi
echo_bt=$(grep -c ' ipc_send: .*msg_name = "machload_echo",' "$TMP/bt.out")
echo_pg=$(page_val cells data-routine machload_echo)
timed=$(grep -o '"name":"machload_echo","sends":[0-9]*,"receives":[0-9]*,"calls":[0-9]*' \
	"$TMP/report.html" | sed 's/.*"calls"://')
if [ "$echo_pg" = $R ] && [ "$echo_bt" = $R ] && [ "$timed" = $R ]; then
	pass live-report-rpc-counts
else
	fail live-report-rpc-counts "machload_echo sent: page ${echo_pg:-none}, babeltrace2 $echo_bt, machload $R; timed ${timed:-none}"
fi
nprof=$(sed -n 's/^profile:::profile-997 //p' "$TMP/bt.counts")
if [ -n "$nprof" ] && [ "$(page_val text n-samples)" = "$nprof" ] &&
   ! grep -q '^flame-frames 0$' "$TMP/page.txt"; then
	pass live-report-flame-graph-samples
else
	fail live-report-flame-graph-samples "page $(page_val text n-samples) samples, babeltrace2 ${nprof:-none}; $(grep flame-frames "$TMP/page.txt")"
fi
drops=$(sed -n 's/^machtrace: recorded [0-9]* events, \([0-9]*\) dropped.*/\1/p' "$TMP/rec.err")
if [ -n "$drops" ] && [ "$(page_val text drops-total)" = "$drops" ]; then
	pass live-report-drops
else
	fail live-report-drops "page $(page_val text drops-total), record ${drops:-?}"
fi
# the tracer's own cost (issue 26 item 5): time in probe context and the
# firings, at least one a recorded event, stored by record, in the summary
nev=$(sed -n 's/^machtrace: recorded \([0-9]*\) events,.*/\1/p' "$TMP/rec.err")
cost=$(page_val text probe-cost)
if [ -n "$nev" ] && echo "$cost" | awk -v e="$nev" '
	match($0, /^[0-9.]+ ms in probe context over [0-9]+ probe firings, [0-9.]+% of the span/) {
		split($0, w, " "); exit !(w[1] > 0 && w[6] >= e + 0 && e > 0) }
	{ exit 1 }'; then
	pass live-report-tracer-cost
else
	fail live-report-tracer-cost "page '$cost', recorded ${nev:-?} events"
fi
# duration: the kept events' span; when events were discarded the page
# says the run may have lasted longer (issue 21 item 14)
dur_ok=1
[ "${drops:-0}" = 0 ] && case "$(page_val text duration)" in *discarded*|'') dur_ok=0 ;; esac
cp "$TMP/page.txt" "$TMP/page-main.txt"
rec_run lossy "rt=3000 pingpong=0 pages=0 threads=0 tasks=0" 'END { }' -q --mach \
	-o "$TMP/lossy" -x bufsize=4k --events ipc
ldrops=$(sed -n 's/^machtrace: recorded [0-9]* events, \([0-9]*\) dropped.*/\1/p' "$TMP/lossy.err")
"$MACHTRACE" report "$TMP/lossy" -o "$TMP/lossy.html" 2>/dev/null &&
	node "$(dirname "$0")/report_page.js" "$TMP/lossy.html" >"$TMP/page.txt" 2>&1
ldur=$(page_val text duration)
if [ $dur_ok = 1 ] && [ "${ldrops:-0}" -gt 0 ] &&
   echo "$ldur" | grep -q "^[0-9.]* ms from the first to the last kept event; $ldrops events were discarded"; then
	pass live-report-duration-with-drops
else
	fail live-report-duration-with-drops "main run: drops ${drops:-?}, '$(sed -n 's/^text duration //p' "$TMP/page-main.txt")'; lossy: drops ${ldrops:-?}, '$ldur'"
fi
cp "$TMP/page-main.txt" "$TMP/page.txt"
if [ "$(head -c 8 "$TMP/report.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]; then
	pass live-report-screenshot
	[ -n "${MT_REPORT_SCREENSHOT:-}" ] && cp "$TMP/report.png" "$MT_REPORT_SCREENSHOT"
else
	fail live-report-screenshot "no PNG: $(head -c 200 "$TMP/page.err")"
fi

# no ipc, no traps, no stacks: those sections say so
rec_run bare "rt=5" 'sched:::off-cpu /0/ { }' -q --mach -o "$TMP/bare" --events sched
rc=$?
"$MACHTRACE" report "$TMP/bare" -o "$TMP/bare.html" 2>"$TMP/bare.rerr" &&
	node "$(dirname "$0")/report_page.js" "$TMP/bare.html" >"$TMP/page.txt" 2>&1
prc=$?
missing=
for s in rpc traps heatmap flame; do
	grep -q "^absent $s " "$TMP/page.txt" || missing="$missing $s"
done
if [ $rc = 0 ] && [ $prc = 0 ] && [ -z "$missing" ] && ! grep -q '^error ' "$TMP/page.txt" &&
   ! grep -q '^absent timeline ' "$TMP/page.txt" && grep -q '^lanes machload ' "$TMP/page.txt"; then
	pass live-report-absent-views-say-so
else
	fail live-report-absent-views-say-so "record $rc, page $prc, no absent note in:${missing:- -} $(grep -E '^(error|absent)' "$TMP/page.txt" | head -n 4 | tr '\n' ' ') $(head -c 200 "$TMP/bare.err")"
fi
