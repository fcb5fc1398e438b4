#!/usr/bin/env bash
# Host-side times that tests must not assert: the full probe listing
# (machtrace -l, the kernel's catalog from its image) and how soon the
# kernel fetch gives up when the mirror cannot be reached.  Median of RUNS.
# Also the kernel's fbt probe counts, from the same catalog.
#   bench/tools-bench.sh [RUNS]
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${1:-5}
TMP=$(mktemp -d /tmp/mt-tools-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

median_ms() {	# command...: prints the median wall time of RUNS runs in ms
	local i s
	for i in $(seq "$RUNS"); do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1
		echo $(( ($(date +%s%N) - s) / 1000000 ))
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

echo "tools: machtrace -l (full kernel catalog), median of $RUNS: $(median_ms "$BUILD/bin/machtrace" -l) ms"
echo "tools: fetch-kernel with an unreachable mirror gives up after: $(RUNS=1 median_ms \
	env MACHTRACE_MIRROR=http://127.0.0.1:9/debian scripts/fetch-kernel.sh --cache "$TMP/k") ms"
nprobes() { "$BUILD/bin/machtrace" -l -n "$1" 2>/dev/null | tail -n +2 | wc -l; }
echo "tools: fbt probes in the kernel's catalog: $(nprobes fbt:::entry) entry, $(nprobes fbt:::return) return"
