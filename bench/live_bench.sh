#!/usr/bin/env bash
# Cost of live kernel tracing: machload's cycles per IPC round trip (rdtsc
# in the guest, TCG) on the stock kernel without tracing, with
#   idle:      the runtime in the kernel, no fbt probe (dtrace:::BEGIN only)
#   count:     fbt::mach_msg_trap:entry { @ = count(); }
#   entry+ret: entry and return probes with a predicate (a latency quantize)
#   profile:   (with MACHTRACE_ICOUNT only) profile-4999 /on/ { @ = count(); }
#              with `on` set during the round trips (machload's phase
#              probes): the cycles it adds over "idle", divided by its
#              firings, are the guest instructions one profile firing
#              costs (the APIC timer's interrupt, the blob's handler, the
#              runtime's predicate and count)
# Runs interleaved, REPS times each.  With MACHTRACE_ICOUNT=shift=0 the
# guest's TSC follows the instructions it executes: the counts repeat
# exactly, a measure of the work tracing adds (as callgrind's).  Without it
# rdtsc reads the host's TSC: the machine is shared and interference only
# adds cycles, so the best (minimum) run of each variant is the figure, as
# bench/probe_bench.c's "best round"; medians are shown next to it.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${N:-100000}
REPS=${REPS:-9}
words="rt=$N pingpong=0 pages=0 threads=0 tasks=0"
TMP=$(mktemp -d /tmp/mt-live-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

. bench/private_build.sh
private_build "$TMP" || exit 1

per() {	# console log -> cycles per round trip
	sed -n "s/^machload: rt n=$N ok=$N cycles=[0-9]* per=\([0-9]*\) OK$/\1/p" "$1"
}
run() {	# variant; prints nothing when the run failed
	rm -f "$TMP/c.log"
	case $1 in
	stock) "$M" boot --quiet --timeout 120 --log "$TMP/c.log" -- $words >/dev/null 2>"$TMP/err" ;;
	idle) MACHTRACE_CONSOLE_LOG=$TMP/c.log "$M" -q --mach --timeout 120 --workload "$words" \
		-n 'BEGIN { n = 1; }' >/dev/null 2>"$TMP/err" ;;
	count) MACHTRACE_CONSOLE_LOG=$TMP/c.log "$M" -q --timeout 120 --workload "$words" \
		-n 'fbt::mach_msg_trap:entry { @ = count(); }' >/dev/null 2>"$TMP/err" ;;
	entret) MACHTRACE_CONSOLE_LOG=$TMP/c.log "$M" -q --timeout 120 --workload "$words" \
		-n 'fbt::mach_msg_trap:entry /execname == "machload"/ { self->ts = timestamp; }
		    fbt::mach_msg_trap:return /self->ts/ { @ = quantize(timestamp - self->ts); self->ts = 0; }' \
		>/dev/null 2>"$TMP/err" ;;
	profile) MACHTRACE_CONSOLE_LOG=$TMP/c.log "$M" -q --mach --timeout 120 --workload "$words" \
		-n 'machload1:::phase-start /copyinstr(arg0) == "rt"/ { on = 1; }
		    machload1:::phase-done /copyinstr(arg0) == "rt"/ { on = 0; }
		    profile-4999 /on/ { @ = count(); } END { printa("firings %@d\n", @); }' \
		>"$TMP/pout" 2>"$TMP/err" &&
		sed -n 's/^firings \([0-9]*\)$/\1/p' "$TMP/pout" >>"$TMP/pfire" ;;
	esac
	[ -f "$TMP/c.log" ] && per "$TMP/c.log"
	[ -f "$TMP/c.log" ] && total "$TMP/c.log" >>"$TMP/$1.total"
	[ -n "$(per "$TMP/c.log" 2>/dev/null)" ] || {
		echo "  ($1 run failed: $(tail -n 1 "$TMP/err"))" >&2
		fails=$((fails + 1))
	}
}
total() {	# console log -> cycles of all the round trips
	sed -n "s/^machload: rt n=$N ok=$N cycles=\([0-9]*\) per=[0-9]* OK$/\1/p" "$1"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
best() { sort -n | head -n 1; }

: >"$TMP/stock"; : >"$TMP/idle"; : >"$TMP/count"; : >"$TMP/entret"; : >"$TMP/profile"
: >"$TMP/pfire"
variants="stock idle count entret"
[ -n "${MACHTRACE_ICOUNT:-}" ] && variants="$variants profile"
fails=0
for i in $(seq "$REPS"); do
	for v in $variants; do
		run $v >>"$TMP/$v"
	done
done
s=$(best <"$TMP/stock"); i=$(best <"$TMP/idle"); c=$(best <"$TMP/count"); e=$(best <"$TMP/entret")
sm=$(median <"$TMP/stock"); im=$(median <"$TMP/idle"); cm=$(median <"$TMP/count"); em=$(median <"$TMP/entret")
if [ -n "${MACHTRACE_ICOUNT:-}" ]; then
	clock="guest clock from instructions executed, -icount $MACHTRACE_ICOUNT: repeatable"
else
	clock="host TSC: includes the host's noise, best run is the figure"
fi
echo "live kernel tracing: machload IPC round trips (N=$N, $REPS runs each, TCG cycles;"
echo "  $clock)"
printf "  %-44s %8s %7s   %8s %7s\n" "" "best" "ratio" "median" "ratio"
awk -v s="$s" -v i="$i" -v c="$c" -v e="$e" -v sm="$sm" -v im="$im" -v cm="$cm" -v em="$em" 'BEGIN {
	if (s <= 0 || sm <= 0) { print "  (no stock measurement)"; exit 1 }
	f = "  %-44s %8d %7.3f   %8d %7.3f\n"
	printf f, "no probes (stock kernel, no tracing)", s, 1, sm, 1
	printf f, "runtime in the kernel, no fbt probe", i, i / s, im, im / sm
	printf f, "fbt::mach_msg_trap:entry { @ = count(); }", c, c / s, cm, cm / sm
	printf f, "entry+return, predicate, quantize", e, e / s, em, em / sm
}'
if [ -n "${MACHTRACE_ICOUNT:-}" ]; then
	ti=$(best <"$TMP/idle.total"); tp=$(best <"$TMP/profile.total"); f=$(best <"$TMP/pfire")
	awk -v ti="$ti" -v tp="$tp" -v f="$f" 'BEGIN {
		if (tp > 0 && f > 0 && ti > 0)
			printf "  profile-4999 /on/ { @ = count(); }: %d firings, %d guest instructions per firing\n", f, (tp - ti) / f
		else
			print "  profile-4999 /on/ { @ = count(); }: no measurement"
	}'
fi
echo "  samples: stock $(tr '\n' ' ' <"$TMP/stock")| idle $(tr '\n' ' ' <"$TMP/idle")| count $(tr '\n' ' ' <"$TMP/count")| entry+return $(tr '\n' ' ' <"$TMP/entret")"
