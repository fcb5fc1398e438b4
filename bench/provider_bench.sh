#!/usr/bin/env bash
# Guest instructions per firing of Mach provider clauses, each beside the
# same logic written with casts on the probe's native arguments:
#   provider NAME firings-per-op F instructions N per-op P ratio R
# (P: instructions per operation traced, R: P over the stock operation's)
# Method (as bench/firing_bench.sh): under MACHTRACE_ICOUNT=shift=0 the
# guest's TSC counts instructions, and machload's phase line gives those
# of N operations (round trips, pages, threads...).  Firings per operation
# come from `@ = count()` at N and at 2N operations (the difference drops
# what fires outside the phase); per firing is (traced - stock) / (N F).
#   bench/provider_bench.sh            (N=2000 by default)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${N:-2000}
TMP=$(mktemp -d /tmp/mt-provider-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

. bench/private_build.sh
private_build "$TMP" || exit 1
export MACHTRACE_ICOUNT=shift=0

# NAME|phase|probe|clause body (the probe's own: the compared logic)
variants=(
	"ipc-count|rt|ipc:::send|@ = count();"
	"ipc-msg-name|rt|ipc:::send|@[args[0]->msg_name] = count();"
	"ipc-msg-name-cast|rt|ipc:::send|@[mach_msgname(((struct ipc_kmsg *)arg0)->ikm_header.msgh_id)] = count();"
	"ipc-msg-id|rt|ipc:::send|@[args[0]->msg_id] = count();"
	"ipc-msg-id-cast|rt|ipc:::send|@[((struct ipc_kmsg *)arg0)->ikm_header.msgh_id] = count();"
	"oncpu-fname|pingpong|sched:::on-cpu|@[curpsinfo->pr_fname] = count();"
	"oncpu-fname-cast|pingpong|sched:::on-cpu|@[mach_execname(curthread)] = count();"
	"lwp-create-count|threads|proc:::lwp-create|@ = count();"
	"fault-fname|pages|vm:::fault|@[args[2]->pr_fname] = count();"
	"fault-fname-cast|pages|vm:::fault|@[mach_execname((struct thread *)arg2)] = count();"
)

words() {	# phase, n: machload's words running that phase alone
	local w="rt=0 pingpong=0 pages=0 threads=0 tasks=0"
	echo "${w/$1=0/$1=$2}"
}
# run PHASE N PROGRAM ('' = stock): "CYCLES COUNT" (COUNT: the first
# aggregation value printed, 0 if none)
run() {
	local c k
	rm -f "$TMP/c.log"
	if [ -z "$3" ]; then
		"$M" boot --quiet --timeout 120 --log "$TMP/c.log" -- $(words "$1" "$2") \
			>/dev/null 2>"$TMP/err"
	else
		MACHTRACE_NOFAST=1 MACHTRACE_CONSOLE_LOG=$TMP/c.log "$M" -q --timeout 120 \
			--workload "$(words "$1" "$2")" -n "$3" >"$TMP/out" 2>"$TMP/err"
	fi
	c=$([ -f "$TMP/c.log" ] && sed -n "s/^machload: $1 n=$2 ok=$2 cycles=\([0-9]*\) per=[0-9]* OK$/\1/p" "$TMP/c.log")
	if [ -z "$c" ] || grep -qi 'drop' "$TMP/err"; then
		echo "provider: run failed ($3): $(tail -n 1 "$TMP/err")" >&2
		return 1
	fi
	k=$([ -n "$3" ] && awk 'NF { print $NF; exit }' "$TMP/out")
	echo "$c ${k:-0}"
}

echo "guest instructions per firing of Mach provider clauses (-icount shift=0, N=$N)"
declare -A stock fpo
for v in "${variants[@]}"; do
	IFS='|' read -r name phase probe body <<<"$v"
	if [ -z "${stock[$phase]:-}" ]; then
		read -r s _ <<<"$(run "$phase" "$N" '')" || exit 1
		[ -n "$s" ] || exit 1
		stock[$phase]=$s
	fi
	if [ -z "${fpo[$probe]:-}" ]; then
		read -r _ k1 <<<"$(run "$phase" "$N" "$probe { @ = count(); }")"
		read -r _ k2 <<<"$(run "$phase" $((2 * N)) "$probe { @ = count(); }")"
		fpo[$probe]=$(awk -v a="${k1:-0}" -v b="${k2:-0}" -v n="$N" \
			'BEGIN { printf "%.3f", (b - a) / n }')
	fi
	read -r c _ <<<"$(run "$phase" "$N" "$probe { $body }")" || exit 1
	[ -n "$c" ] || exit 1
	awk -v n="$name" -v c="$c" -v s="${stock[$phase]}" -v N="$N" -v f="${fpo[$probe]}" \
		'BEGIN { x = "-"; if (f > 0) x = sprintf("%.0f", (c - s) / (N * f))
			printf "provider %s firings-per-op %s instructions %s per-op %.0f ratio %.3f\n",
				n, f, x, c / N, c / s }'
done
for p in "${!stock[@]}"; do
	awk -v p="$p" -v s="${stock[$p]}" -v n="$N" \
		'BEGIN { printf "provider stock %s instructions-per-op %.0f\n", p, s / n }'
done
