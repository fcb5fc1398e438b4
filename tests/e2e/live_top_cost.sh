#!/usr/bin/env bash
# engines: once (its bound is the compiled engine's probe effect)
# top's program per IPC round trip (issue 26), under MACHTRACE_ICOUNT=shift=0
# (the guest's TSC counts its instructions, so a run repeats exactly):
# machload's rt=2000 round trips with `machtrace top --program` against
# the same boot untraced.  x3.905 while every message's sender was
# named through args[1]'s translator (mach_pid() and mach_execname() by
# the runtime at each send), x2.765 since a sender that is the current
# thread is named by pid and execname, x2.558 since the interval's IPC
# latency is the sum of the routines' (@top_rlat) instead of a second
# llquantize() at each receive, x2.315 since compiled code's
# top_snd[msg_addr] builds its key in the helper, without the
# interpreter's tuple and scratch, x2.126 since compiled code computes
# llquantize()'s bin itself, x2.307 since compiled code's calls of the
# runtime run on the blob's stack (36 instructions a call: a deep kernel
# caller's 4 KiB stack overflowed under them); the bound is 2.4.  And the count of
# messages by sender stays the same: on a serve workload, where fast
# handoffs send for another thread, @top_tsnd summed over its intervals
# equals a clause counting every send by args[1]'s pid and name.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live top-cost

N=2000
words="rt=$N pingpong=0 pages=0 threads=0 tasks=0"
cycles() {	# console log -> instructions over the N round trips
	sed -n "s/^machload: rt n=$N ok=$N cycles=\([0-9]*\) per=[0-9]* OK$/\1/p" "$1"
}
"$MACHTRACE" top --program >"$TMP/top.d"
MACHTRACE_ICOUNT=shift=0 timeout 120 "$MACHTRACE" boot --quiet --timeout 100 \
	--log "$TMP/stock.con" -- $words >/dev/null 2>"$TMP/stock.err"
MACHTRACE_ICOUNT=shift=0 MACHTRACE_CONSOLE_LOG=$TMP/top.con timeout 120 "$MACHTRACE" -q \
	--timeout 100 --workload "$words" -s "$TMP/top.d" >/dev/null 2>"$TMP/top.err"
stock=$(cycles "$TMP/stock.con" 2>/dev/null)
top=$(cycles "$TMP/top.con" 2>/dev/null)
if [ -z "$stock" ] || [ -z "$top" ]; then
	fail top-cost-measured "stock '${stock:-}' top '${top:-}': $(tail -n 1 "$TMP/stock.err" "$TMP/top.err")"
	exit 1
fi
ratio=$(awk -v t="$top" -v s="$stock" 'BEGIN { printf "%.3f", t / s }')
echo "figure: top's program $((top / N)) instructions per round trip, stock $((stock / N)), x$ratio"
if awk -v r="$ratio" 'BEGIN { exit !(r <= 2.4) }'; then
	pass top-cost-bound
else
	fail top-cost-bound "x$ratio ($((top / N)) instructions per round trip, stock $((stock / N)))"
fi

{
	cat "$TMP/top.d"
	echo 'ipc:::send /arg1/ { @ref[args[1]->pr_pid, mach_execname((void *)arg1)] = count(); }'
	echo 'ipc:::send /arg1 && arg1 != (int64_t)curthread/ { @other = count(); }'
	echo 'tick-3s { exit(0); }'
	# top's tick clauses trace() with no newline: each line starts anew
	echo 'END { printa("\ntsnd %d %d %s %@d\n", @top_tsnd); printa("\nref %d %s %@d\n", @ref);'
	echo '	printa("\nother %@d\n", @other); }'
} >"$TMP/same.d"
MACHTRACE_CONSOLE_LOG=$TMP/same.con timeout 120 "$MACHTRACE" -q --timeout 100 \
	--workload "serve=50" -s "$TMP/same.d" >"$TMP/same.out" 2>"$TMP/same.err"
rc=$?
awk '$1 == "tsnd" { n[$3 " " $4] += $5 } $1 == "ref" { r[$2 " " $3] += $4 }
	END { for (k in r) if (n[k] != r[k]) bad = bad k ": " n[k] + 0 " vs " r[k] "; "
	      for (k in n) if (!(k in r)) bad = bad k ": " n[k] " vs none; "
	      printf "%s", bad }' "$TMP/same.out" >"$TMP/same.diff"
if [ $rc = 0 ] && grep -q '^ref ' "$TMP/same.out" && grep -q '^other [1-9]' "$TMP/same.out" &&
   [ ! -s "$TMP/same.diff" ]; then
	pass top-cost-same-counts
else
	fail top-cost-same-counts "exit $rc, $(grep -c '^ref ' "$TMP/same.out") senders, $(grep '^other' "$TMP/same.out"); differ: $(head -c 300 "$TMP/same.diff") $(head -c 200 "$TMP/same.err")"
fi
