#!/usr/bin/env bash
# Guest instructions per probe firing on fbt::mach_msg_trap, one line per
# clause shape, for the compiled probes (jit/, the engine in use) and for
# the interpreter (MACHTRACE_NOJIT=1) beside it:
#   firing NAME instructions N
#   firing NAME interpreter instructions N
# then the round trips they come from, with their ratio to stock (and
# those of `record --events sched,ipc,proc,trap,vm` and of top's program,
# over rt=2000: round trip record|top instructions N ratio R, and how
# many of their probes the interpreter runs and why), and
# (PROBE_BENCH set) the interpreter's ns per firing for the same clauses on
# the host (bench/probe_bench.c --firing) beside them, and bpftrace's for
# the same logic on the host's Linux where it works (bench/bpftrace_bench.sh).
#
# Method: machload's rt word times N IPC round trips with rdtsc; with
# MACHTRACE_ICOUNT=shift=0 the guest's TSC counts the instructions it
# executes, so a run repeats exactly.  Each round trip enters mach_msg_trap
# twice, so a clause on its entry costs (traced - stock) / 2N instructions
# per firing; latency-pair's clauses are on the entry and the return, four
# firings per round trip, (traced - stock) / 4N.  `count` is the general
# path (MACHTRACE_NOFAST=1); `fast-count` is the same clause on the
# trampoline's increment.  One QEMU at a time, one after the other.
#   bench/firing_bench.sh        (N=100000 by default)
#   ONLY="latency-pair count" bench/firing_bench.sh   (those variants alone,
#   and no round-trip ratios: for working on one figure)
#   TOOLS_ONLY=1 bench/firing_bench.sh   (record's and top's rows alone, and
#   the check that their programs are compiled: exit 1 if not)
#   SMP=1 bench/firing_bench.sh   (issue 28: count, the latency pair and
#   the round-trip program on sid's SMP kernel, --cpus 1 beside --cpus 2:
#   smp firing NAME cpus1 N cpus2 N, smp round trip NAME ratio cpus1 R
#   cpus2 R; "smp unavailable: WHY" without that kernel)
#
# SMP method: machload's cpus=N word, two workers each making N round
# trips on a port of its own (on one CPU both share it; on two, one runs
# on each CPU at once), so both columns do the same work.  QEMU runs
# -icount with one thread for all vCPUs (round robin) and its clock, the
# guest's TSC, counts the instructions of every CPU: the rdtsc interval
# is the work of both CPUs, not the elapsed time of one, and (traced -
# stock) / firings is the cost of a firing wherever it ran.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${N:-100000}
words="rt=$N pingpong=0 pages=0 threads=0 tasks=0"
WORD=rt		# machload's report line timing the round trips
MACHINE=	# machine options for every run (the SMP mode's kernel, CPUs)
TMP=$(mktemp -d /tmp/mt-firing-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

. bench/private_build.sh
private_build "$TMP" || exit 1
export MACHTRACE_ICOUNT=shift=0

E='fbt::mach_msg_trap:entry'
R='fbt::mach_msg_trap:return'
# NAME|firings per round trip|nofast|program
variants=(
	"count|2|1|$E { @ = count(); }"
	"false-predicate|2|1|$E /arg0 == 0xdeadbeef/ { @ = count(); }"
	"execname-predicate|2|1|$E /execname == \"machload\"/ { @ = count(); }"
	"key-execname|2|1|$E { @[execname] = count(); }"
	"key-probefunc|2|1|$E { @[probefunc] = count(); }"
	"trace|2|1|$E { trace(arg0); }"
	"printf|2|1|$E { printf(\"%d %d\\n\", arg0, arg1); }"
	"latency-pair|4|1|$E { self->ts = timestamp; } $R /self->ts/ { @ = quantize(timestamp - self->ts); self->ts = 0; }"
	"fast-count|2|0|$E { @ = count(); }"
	"assoc|2|1|int a[uint64_t]; $E { a[tid]++; }"
	"assoc-delete|4|1|$E { b[tid] = 1; } $R { b[tid] = 0; }"
)
# live_bench.sh's entry+return program (the issue's round-trip figure)
bench_prog="$E /execname == \"machload\"/ { self->ts = timestamp; }
	$R /self->ts/ { @ = quantize(timestamp - self->ts); self->ts = 0; }"

cycles() {	# console log -> instructions over the round trips, all come back
	sed -n "s/^machload: $WORD n=\([0-9]*\) ok=\1 cycles=\([0-9]*\) per=[0-9]* OK$/\2/p" "$1"
}
run() {	# nofast, program ('' = stock) [, nojit]: prints the round trips' instructions
	local c j=${3:-0}
	rm -f "$TMP/c.log"
	if [ -z "$2" ]; then
		"$M" boot $MACHINE --quiet --timeout 120 --log "$TMP/c.log" -- $words >/dev/null 2>"$TMP/err"
	else
		env $([ "$1" = 1 ] && echo MACHTRACE_NOFAST=1) $([ "$j" = 1 ] && echo MACHTRACE_NOJIT=1) \
			MACHTRACE_CONSOLE_LOG=$TMP/c.log "$M" $MACHINE -q --timeout 120 \
			--workload "$words" -n "$2" >/dev/null 2>"$TMP/err"
	fi
	c=$([ -f "$TMP/c.log" ] && cycles "$TMP/c.log")
	if [ -z "$c" ]; then
		echo "firing: run failed: $(tail -n 1 "$TMP/err")" >&2
		return 1
	fi
	if grep -qi 'drop' "$TMP/err"; then
		echo "firing: records dropped (the figure would be too low): $(grep -i drop "$TMP/err" | head -n 1)" >&2
		return 1
	fi
	echo "$c"
}

# the tools' whole programs (record --events, top's), over the issue's
# rt=2000: their ratio to that stock run
tool_run() {	# record | top, words (N round trips): prints their instructions
	local c
	rm -f "$TMP/c.log" "$TMP/$1.jit"
	export MACHTRACE_JIT_STATS=$TMP/$1.jit	# appended to: removed above
	if [ "$1" = record ]; then
		MACHTRACE_CONSOLE_LOG=$TMP/c.log "$M" record -o "$TMP/rec" \
			--events sched,ipc,proc,trap,vm --workload "$2" >/dev/null 2>"$TMP/err"
		rm -rf "$TMP/rec"
	else
		"$M" top --program >"$TMP/top.d" &&
			MACHTRACE_CONSOLE_LOG=$TMP/c.log "$M" -q --timeout 120 --workload "$2" \
				-s "$TMP/top.d" >/dev/null 2>"$TMP/err"
	fi
	unset MACHTRACE_JIT_STATS
	c=$([ -f "$TMP/c.log" ] && cycles "$TMP/c.log")
	if [ -z "$c" ] || grep -qE '(^|[^0-9])[1-9][0-9]* dropped|drops' "$TMP/err"; then
		echo "firing: the $1 run failed or dropped: $(tail -n 1 "$TMP/err")" >&2
		return 1
	fi
	echo "$c"
}
# The check: every probe of the tools' programs is compiled, but where
# its site cannot take compiled code (an int3 site, a site another probe
# or a hook shares: the target's placement, not the compiler).  A probe
# the compiler leaves to the interpreter flags the row and fails the
# script once every figure is out.
placement='^interpreted [^ ]*: (an int3 site|another probe or a hook fires at its site)$'
unchecked=0
tools() {
	TN=2000
	twords="rt=$TN pingpong=0 pages=0 threads=0 tasks=0"
	tstock=$(words=$twords N=$TN run 0 '') || exit 1
	for t in record top; do
		c=$(N=$TN tool_run $t "$twords") || exit 1
		awk -v l="$t" -v c="$c" -v s="$tstock" -v n="$TN" \
			'BEGIN { printf "round trip %s instructions %.0f ratio %.3f\n", l, c / n, c / s }'
		echo "round trip $t probes interpreted $(grep -c '^interpreted' "$TMP/$t.jit") of $(wc -l <"$TMP/$t.jit"): $(sed -n 's/^interpreted [^ ]*: //p' "$TMP/$t.jit" | sort | uniq -c | sort -rn | head -n 3 | sed 's/^ *//' | paste -sd ';')"
		left=$(grep -v '^compiled ' "$TMP/$t.jit" | grep -Ev "$placement" | sed 's/^interpreted [^ ]*: //' | sort | uniq -c | sed 's/^ *//' | paste -sd ';')
		if [ -n "$left" ]; then
			echo "check $t compiled: FLAGGED, the compiler left probes to the interpreter: $left"
			unchecked=1
		else
			echo "check $t compiled: ok"
		fi
	done
}
# SMP=1: the same clauses on one CPU and on two, side by side (see above)
smp() {
	local k=$BUILD/kernels/sid-smp/gnumach-dbg name per nofast prog c line
	if [ ! -f "$k" ]; then
		echo "smp unavailable: missing $k (scripts/setup.sh)"
		return 0
	fi
	words="cpus=$N rt=0 pingpong=0 pages=0 threads=0 tasks=0" WORD=cpus
	declare -A st
	for cpus in 1 2; do
		MACHINE="--kernel $k --cpus $cpus"
		st[$cpus]=$(run 0 '') || return 1
	done
	echo "smp stock round trip instructions cpus1 $(( st[1] / (2 * N) )) cpus2 $(( st[2] / (2 * N) ))"
	for v in "${variants[@]}" "bench|4|0|"; do
		IFS='|' read -r name per nofast prog <<<"$v"
		case $name in count | latency-pair | bench) ;; *) continue ;; esac
		[ "$name" = bench ] && prog=$bench_prog	# more than one line
		line=
		for cpus in 1 2; do
			MACHINE="--kernel $k --cpus $cpus"
			c=$(run "$nofast" "$prog") || return 1
			line+=$(awk -v n="$name" -v c="$c" -v s="${st[$cpus]}" -v k=$((per * 2 * N)) -v p="$cpus" \
				'BEGIN { if (n == "bench") printf " cpus%d %.3f", p, c / s
					 else printf " cpus%d %.0f", p, (c - s) / k }')
		done
		if [ "$name" = bench ]; then
			echo "smp round trip entry+return+predicate+thread-local+quantize ratio$line"
		else
			echo "smp firing $name$line"
		fi
	done
}
if [ -n "${SMP:-}" ]; then
	smp
	exit
fi
if [ -n "${TOOLS_ONLY:-}" ]; then	# the tools' rows and their check alone
	tools
	exit "$unchecked"
fi
stock=$(run 0 '') || exit 1
echo "guest instructions per firing on fbt::mach_msg_trap (-icount shift=0;"
echo "  machload rt=$N, stock round trip $(( (stock + N / 2) / N )) instructions)"
declare -A rt
for v in "${variants[@]}"; do
	IFS='|' read -r name per nofast prog <<<"$v"
	case " ${ONLY:-$name} " in *" $name "*) ;; *) continue ;; esac
	c=$(run "$nofast" "$prog") || exit 1
	rt[$name]=$c
	awk -v n="$name" -v c="$c" -v s="$stock" -v k=$((per * N)) \
		'BEGIN { printf "firing %s instructions %.0f\n", n, (c - s) / k }'
	[ "$name" = fast-count ] && continue	# no compiled code there
	c=$(run "$nofast" "$prog" 1) || exit 1
	rt[$name-interp]=$c
	awk -v n="$name" -v c="$c" -v s="$stock" -v k=$((per * N)) \
		'BEGIN { printf "firing %s interpreter instructions %.0f\n", n, (c - s) / k }'
done
[ -n "${ONLY:-}" ] && exit 0
c=$(run 0 "$bench_prog") || exit 1
rt[bench]=$c
c=$(run 0 "$bench_prog" 1) || exit 1
rt[bench-interp]=$c
ratio() {	# label, instructions
	awk -v l="$1" -v c="$2" -v s="$stock" -v n="$N" \
		'BEGIN { printf "round trip %s instructions %.0f ratio %.3f\n", l, c / n, c / s }'
}
ratio stock "$stock"
ratio fast-count "${rt[fast-count]}"
ratio count "${rt[count]}"
ratio entry+return+predicate+thread-local+quantize "${rt[bench]}"
ratio count-interpreter "${rt[count-interp]}"
ratio entry+return+predicate+thread-local+quantize-interpreter "${rt[bench-interp]}"
tools
if [ -n "${PROBE_BENCH:-}" ]; then
	echo "the same clauses on the host, interpreter and compiled (local target, $PROBE_BENCH --firing):"
	"$PROBE_BENCH" --firing || exit 1
fi
echo "the same logic with bpftrace on this host's Linux (bench/bpftrace_bench.sh):"
bench/bpftrace_bench.sh
[ "$unchecked" = 0 ] || { echo "firing: a tool's program is not compiled in full (check lines above)" >&2; exit 1; }
