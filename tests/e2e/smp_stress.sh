#!/usr/bin/env bash
# The two-CPU stress test (issue 28): every fbt entry probe with a printf
# and a thread-local on sid's SMP GNU Mach with two CPUs, for
# MACHTRACE_STRESS_SECONDS
# (10 here, 30 under `make stress`) of machload's cpus= workers, one on
# each CPU, then exit() and detach.  Checks: the session exits 0, no
# guest panic or debugger stop (a CPU meeting a torn instruction would
# fault into it), the kernel text and every CPU's IDT equal to before,
# both CPUs fired, and on each CPU the records printed plus the drops
# reported equal its firings (-x bufsize=64k, or MACHTRACE_STRESS_BUFSIZE:
# some drop).  The tick's clause prints and counts as the others do: its
# exit() record, written into CPU 0's full buffer, is a drop like any
# other, which left CPU 0 one over before.  A missing image is a SKIP.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live smp-stress

need_sid_smp smp-stress
SECS=${MACHTRACE_STRESS_SECONDS:-10}
BUFSIZE=${MACHTRACE_STRESS_BUFSIZE:-64k}
prog="fbt:::entry { self->n++; printf(\"x %d %d\\n\", cpu, self->n); @n[cpu] = count(); }
tick-${SECS}s { printf(\"x %d exit\\n\", cpu); @n[cpu] = count(); exit(0); }
END { printa(\"n%d %@d\\n\", @n); }"
t0=$(date +%s)
MACHTRACE_TEXTCHECK=1 live_run stress "cpus=20000000" "$prog" -q -x bufsize="$BUFSIZE" \
	--kernel "$SID" --cpus 2
rc=$?
echo "# smp-stress: ${SECS} s traced, $(( $(date +%s) - t0 )) s in all, exit $rc," \
	"$(grep -c '^x ' "$TMP/stress.out") records printed," \
	"exit()'s $(grep -c '^x [0-9]* exit$' "$TMP/stress.out")"
if [ $rc = 0 ]; then
	pass smp-stress-session
else
	fail smp-stress-session "exit $rc: $(head -c 300 "$TMP/stress.err")"
fi
no_panic smp-stress-no-panic "$TMP/stress.con"
restored smp-stress-text-and-idt-restored "$TMP/stress.err"
for c in 0 1; do
	accounted smp-stress-accounted-cpu$c "$TMP/stress.out" "$TMP/stress.err" $c $rc
done
