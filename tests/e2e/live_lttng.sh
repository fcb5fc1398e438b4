#!/usr/bin/env bash
# LTTng's own analyses (Debian's python3-lttnganalyses) read what record
# -o DIR writes, laid out as an LTTng session (DIR/kernel/...), and count
# what D counts in the same session: lttng-syscallstats' completed
# syscalls per trap equal mach_trap:::return per trap; lttng-schedstats'
# wakeup latencies equal sched:::wakeup firings of threads not on the CPU.
# export reads the session layout too.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-lttng
for t in lttng-syscallstats lttng-schedstats; do
	if ! command -v $t >/dev/null; then
		echo "SKIP live-lttng: $t is not installed (python3-lttnganalyses; make setup)"
		exit 0
	fi
done

prog='mach_trap:::return { @r[probefunc] = count(); }
sched:::wakeup /args[0]->pr_lwpid != curlwpsinfo->pr_lwpid/ { @w = count(); }
END { printa("ret %s %@d\n", @r); printa("wake %@d\n", @w); }'
rec_run lt "rpcs=20 threads=2 tasks=1" "$prog" -q --mach -o "$TMP/tr" --events sched,proc,trap
rc=$?
if [ $rc = 0 ] && [ -f "$TMP/tr/kernel/metadata" ] && [ -f "$TMP/tr/kernel/channel0_0" ] &&
   grep -q '^machtrace: recorded [0-9]* events, 0 dropped' "$TMP/lt.err"; then
	pass live-lttng-session-layout
else
	fail live-lttng-session-layout "exit $rc: $(ls -R "$TMP/tr" | tr '\n' ' ') $(head -c 300 "$TMP/lt.err")"
fi

# " - TRAP  COUNT  MIN ..." lines of every thread, summed per trap
lttng-syscallstats "$TMP/tr" >"$TMP/sys.out" 2>"$TMP/sys.err"; r1=$?
want=$(sed -n 's/^ret \([^ ]*\) \([0-9]*\)$/\1 \2/p' "$TMP/lt.out" | sort)
got=$(awk '$1 == "-" { n[$2] += $3 } END { for (k in n) print k, n[k] }' "$TMP/sys.out" | sort)
if [ $r1 = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] && grep -q '^Total syscalls: [1-9]' "$TMP/sys.out"; then
	pass live-lttng-syscallstats-equal-d
else
	fail live-lttng-syscallstats-equal-d "exit $r1; D: $(echo $want); lttng-syscallstats: $(echo $got) $(head -c 300 "$TMP/sys.err")"
fi

# per-TID table: "NAME (TID)  COUNT  MIN AVG MAX STDEV [PRIOS]"
lttng-schedstats "$TMP/tr" >"$TMP/sch.out" 2>"$TMP/sch.err"; r2=$?
w=$(val wake "$TMP/lt.out")
got=$(awk '/^Scheduling latency stats \(per-TID\)/ { on = 1; next }
	on && /^[^ ].* \([0-9]+\) +[0-9]+ / { for (i = 1; i <= NF; i++) if ($i ~ /^\([0-9]+\)$/) { n += $(i + 1); break } }
	END { print n + 0 }' "$TMP/sch.out")
if [ $r2 = 0 ] && [ -n "$w" ] && [ "$w" -gt 0 ] && [ "$got" = "$w" ]; then
	pass live-lttng-schedstats-equal-d
else
	fail live-lttng-schedstats-equal-d "exit $r2; D wakeups ${w:-none}, lttng-schedstats $got: $(head -c 300 "$TMP/sch.err")"
fi

"$MACHTRACE" export "$TMP/tr" --format chrome -o "$TMP/tr.json" 2>"$TMP/ex.err"; r3=$?
if [ $r3 = 0 ] && grep -q '"name":"running"' "$TMP/tr.json"; then
	pass live-lttng-export-reads-session
else
	fail live-lttng-export-reads-session "exit $r3: $(head -c 300 "$TMP/ex.err")"
fi
