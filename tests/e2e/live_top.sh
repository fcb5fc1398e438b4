#!/usr/bin/env bash
# machtrace top on a workload that ends before top's first tick (issue 21
# item 10): the interval the end cut short is printed, marked partial,
# with exact figures: its messages are every ipc:::send an independent
# aggregation of the same session counted.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live top
printf 'ipc:::send { @s = count(); }\nEND { printa("sends %%@d\\n", @s); }\n' >"$TMP/s.d"
MACHTRACE_CONSOLE_LOG=$TMP/top.con timeout 120 "$MACHTRACE" top -b -n 100 \
	--workload 'rt=500 pages=20 rpcs=5' -s "$TMP/s.d" >"$TMP/top.out" 2>"$TMP/top.err"
rc=$?
workload_ok top-workload-completes "$TMP/top.con"
msgs=$(sed -n 's/^SYSTEM .* msgs \([0-9]*\) .*/\1/p' "$TMP/top.out" | awk '{ n += $1 } END { print n + 0 }')
sends=$(val sends "$TMP/top.out")
if [ $rc = 0 ] && grep -q '^machtrace top: refresh [0-9]*, .* (partial: the session ended)$' "$TMP/top.out" &&
   [ "$(grep -c '(partial' "$TMP/top.out")" = 1 ] && [ -n "$sends" ] && [ "$msgs" = "$sends" ]; then
	pass top-partial-interval
else
	fail top-partial-interval "exit $rc, msgs $msgs, sends ${sends:-}: $(head -c 300 "$TMP/top.out" "$TMP/top.err")"
fi
# A line per CPU (one CPU here): its busy share is every non-idle thread's
# time on it, the SYSTEM line's cpu figure, refresh by refresh.
sys_cpu=$(sed -n 's/^SYSTEM   cpu \([0-9.]*\)%.*/\1/p' "$TMP/top.out" | tr '\n' ' ')
cpu0=$(sed -n 's/^CPU0     busy \([0-9.]*\)%$/\1/p' "$TMP/top.out" | tr '\n' ' ')
if [ -n "$sys_cpu" ] && [ "$cpu0" = "$sys_cpu" ] && ! grep -q '^CPU[1-9]' "$TMP/top.out"; then
	pass top-per-cpu-line
else
	fail top-per-cpu-line "SYSTEM cpu '$sys_cpu', CPU0 busy '$cpu0'"
fi
