#!/usr/bin/env bash
# machtrace health (issue 14 item 3): a quiet machine (machload serve with
# a few rt round trips) against one under fault pressure (pages= in a loop
# with no pause): the pressured run's score is lower, VM pressure is what
# lowers it (and it does not lower the quiet one), and a user rule on
# fault_time_pct fires there, listed with its line and message.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live health
printf '# a paging storm\nfault_time_pct > 5 for 2 intervals -> paging storm\n' >"$TMP/r.rules"
run() {	# name words
	MACHTRACE_CONSOLE_LOG=$TMP/$1.con timeout 120 "$MACHTRACE" health -d 3 \
		--rules "$TMP/r.rules" --workload "$2" >"$TMP/$1.out" 2>"$TMP/$1.err"
}
run quiet "serve=200 rt=20"; rq=$?
run pages "serve=0 pages=500"; rp=$?
sq=$(sed -n 's|^machtrace health: \([0-9]*\)/100 over 3 intervals$|\1|p' "$TMP/quiet.out")
sp=$(sed -n 's|^machtrace health: \([0-9]*\)/100 over 3 intervals$|\1|p' "$TMP/pages.out")
if [ $rq = 0 ] && [ $rp = 0 ] && [ -n "$sq" ] && [ -n "$sp" ] && [ "$sp" -lt "$sq" ] &&
   grep -qE '^  -[0-9.]+ VM pressure \(in [0-9] of 3 intervals; last: [0-9.]+% of the time in page faults\)' "$TMP/pages.out" &&
   ! grep -q "VM pressure" "$TMP/quiet.out"; then
	pass health-pages-lowers-score-vm-pressure
else
	fail health-pages-lowers-score-vm-pressure "quiet $sq (exit $rq), pages $sp (exit $rp): $(head -n 4 "$TMP/pages.out" "$TMP/pages.err" | tr '\n' ' ')"
fi
if grep -q "rule .*line 2: paging storm (fault_time_pct = " "$TMP/pages.out" &&
   ! grep -q "paging storm" "$TMP/quiet.out"; then
	pass health-rule-fires
else
	fail health-rule-fires "$(grep -E 'rule|^  -' "$TMP/pages.out" | tr '\n' ' ')"
fi
# metrics in plain decimals (issue 21 item 14: free_pages 1.255e+04)
if grep -q '^  free_pages  *[0-9][0-9]*\.[0-9][0-9]  ewma  *[0-9][0-9]*\.[0-9][0-9]$' "$TMP/quiet.out" &&
   ! grep -qE '[0-9]e[+-][0-9]' "$TMP/quiet.out" "$TMP/pages.out"; then
	pass health-metrics-decimal
else
	fail health-metrics-decimal "$(grep -E 'free_pages|[0-9]e[+-]' "$TMP/quiet.out" | head -n 2 | tr '\n' ' ')"
fi
echo "health: quiet $sq/100, pages= $sp/100" >&2
