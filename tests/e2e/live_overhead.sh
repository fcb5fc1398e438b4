#!/usr/bin/env bash
# The tracer's own cost (issue 26 item 5): top's TRACER line and health's
# report state the time spent in probe context and the firings of the
# same session, from the runtime's per-CPU counters.  While probes fire
# the figures are non-zero and below the interval; a heavier program
# (top's own plus an -s program with stack() keys and translated
# arguments on every message and switch) costs more per interval than
# top alone.  Under -icount (the guest's clock counts its instructions)
# the figures are those of the guest alone, not of the host's load.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live overhead

# top -b -n 4 with the serve workload; prints "MS PCT FIRINGS" of
# intervals 2..4 summed (the first holds the session's start)
top_cost() {	# name [top options]
	local name=$1
	shift
	MACHTRACE_ICOUNT=shift=0 MACHTRACE_CONSOLE_LOG=$TMP/$name.con timeout 120 \
		"$MACHTRACE" top -b -n 4 \
		--workload 'serve=300' "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || return 1
	sed -n 's/^TRACER   own cost \([0-9.]*\) ms in probe context, \([0-9.]*\)% of the interval; \([0-9]*\) firings .*/\1 \2 \3/p' \
		"$TMP/$name.out" | awk 'NR > 1 { ms += $1; pct += $2; f += $3 } END { if (NR == 4) print ms, pct, f }'
}

light=$(top_cost light)
if [ -n "$light" ] && echo "$light" | awk '{ exit !($1 > 0 && $2 > 0 && $2 < 300 && $3 > 0) }'; then
	pass overhead-top-tracer-line
else
	fail overhead-top-tracer-line "ms pct firings: '${light}': $(grep -m1 TRACER "$TMP/light.out") $(head -c 300 "$TMP/light.err")"
fi

cat >"$TMP/heavy.d" <<'D'
ipc:::send, ipc:::receive { @h[args[0]->msg_name, args[1]->pr_fname, stack()] = count(); }
ipc:::send, ipc:::receive { @g[args[0]->msg_subsystem, curpsinfo->pr_psargs, stack()] = count(); }
sched:::off-cpu, sched:::on-cpu { @s[stack(), curpsinfo->pr_fname] = count(); }
D
heavy=$(top_cost heavy -s "$TMP/heavy.d")
if [ -n "$light" ] && [ -n "$heavy" ] &&
   awk -v l="${light%% *}" -v h="${heavy%% *}" 'BEGIN { exit !(h > 1.5 * l) }'; then
	pass overhead-grows-with-heavier-program
else
	fail overhead-grows-with-heavier-program "top alone '$light', with the heavier program '$heavy' (ms pct firings)"
fi

MACHTRACE_ICOUNT=shift=0 MACHTRACE_CONSOLE_LOG=$TMP/h.con timeout 120 "$MACHTRACE" health -d 2 --workload 'serve=300' \
	>"$TMP/h.out" 2>"$TMP/h.err"
rc=$?
pct=$(sed -n "s/^tracer's own cost: \([0-9.]*\)% of guest time in probe context, \([0-9]*\) firings\/s .*/\1 \2/p" "$TMP/h.out")
if [ $rc = 0 ] && [ -n "$pct" ] && echo "$pct" | awk '{ exit !($1 > 0 && $1 < 100 && $2 > 0) }' &&
   grep -q '^  probe_pct  *[0-9.]*  ewma' "$TMP/h.out"; then
	pass overhead-health-states-it
else
	fail overhead-health-states-it "exit $rc, '$pct': $(head -c 400 "$TMP/h.out") $(head -c 200 "$TMP/h.err")"
fi

# the toolkit's latency scripts say it at the end (MACHTRACE_PROBE_COST in
# their #! line), run as installed, with machtrace on PATH
PATH="$PWD/$BUILD/bin:$PATH" MACHTRACE_CONSOLE_LOG=$TMP/tk.con timeout 120 toolkit/rpctop \
	--timeout 100 --workload 'rpcs=5 threads=0 tasks=0 rt=0 pages=0' >"$TMP/tk.out" 2>"$TMP/tk.err"
rc=$?
if [ $rc = 0 ] && grep -q '^machload_echo ' "$TMP/tk.out" &&
   sed -n "s/^machtrace: the tracer's own cost: \([0-9.]*\) ms in probe context, \([0-9]*\) probe firings: .*/\1 \2/p" \
	"$TMP/tk.err" | awk '{ ok = $1 > 0 && $2 >= 10 } END { exit !ok }'; then
	pass overhead-toolkit-states-it
else
	fail overhead-toolkit-states-it "exit $rc: $(head -c 300 "$TMP/tk.err") $(head -c 200 "$TMP/tk.out")"
fi
