#!/usr/bin/env bash
# engines: once (its budget is the compiled probe's cost; the interpreter firing alone is dearer)
# A thread's life costs the tracer a bounded number of guest instructions
# (make bench's lwp-create-count row): under -icount, machload's threads
# phase traced by `proc:::lwp-create { @ = count(); }` minus the stock
# phase, over the firings.  Each thread's end empties the thread memo
# (lk_ids_forget); a sweep of every CPU's memo, LK_NCPU_MAX of them on
# one CPU, cost about 950 instructions more a thread (1897 against 934).
# The bound sits between the two.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live thread-cost
N=1000
W="rt=0 pingpong=0 pages=0 threads=$N tasks=0"
BUDGET=1400

cycles() {	# console log: the threads phase's instructions
	sed -n "s/^machload: threads n=$N ok=$N cycles=\([0-9]*\) per=[0-9]* OK$/\1/p" "$1"
}
MACHTRACE_ICOUNT=shift=0 timeout 120 "$MACHTRACE" boot --quiet --timeout 100 \
	--log "$TMP/stock.con" -- $W >/dev/null 2>"$TMP/stock.err"
stock=$(cycles "$TMP/stock.con")
MACHTRACE_ICOUNT=shift=0 MACHTRACE_NOFAST=1 live_run traced "$W" 'proc:::lwp-create { @ = count(); }' -q
traced=$(cycles "$TMP/traced.con")
k=$(awk 'NF { print $NF; exit }' "$TMP/traced.out")
if [ -z "$stock" ] || [ -z "$traced" ] || [ -z "$k" ] || [ "$k" -lt "$N" ]; then
	fail thread-cost "stock '$stock' traced '$traced' firings '$k': $(tail -n 1 "$TMP/traced.err")"
else
	per=$(( (traced - stock) / k ))
	if [ "$per" -gt 0 ] && [ "$per" -lt "$BUDGET" ]; then
		pass thread-cost
	else
		fail thread-cost "$per instructions a thread (stock $stock, traced $traced, $k firings), budget $BUDGET"
	fi
fi
