#!/usr/bin/env bash
# Attach latency to a running VM (machtrace vm start, then sessions with
# --vm): the time from a session's start (before machtrace is exec'd) to
# BEGIN firing in the guest kernel (its walltimestamp), and the whole
# session (BEGIN { exit(0); } to machtrace's exit), median of REPS
# sessions on one VM.  The VM's guest clock is the host's wall clock
# carried over at GO, so the first figure is good to a clock tick (10 ms).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
M=$BUILD/bin/machtrace
REPS=${REPS:-11}
VM=bench-$$
TMP=$(mktemp -d /tmp/mt-vm-bench.XXXXXX)
trap '"$M" vm stop "$VM" >/dev/null 2>&1; rm -rf "$TMP"' EXIT

"$M" vm start --name "$VM" --memory 256 --workload 'rpcs=20 serve=50' >/dev/null || exit 1
: >"$TMP/begin"; : >"$TMP/whole"
for i in $(seq "$REPS"); do
	t0=$(date +%s%N)
	"$M" --vm "$VM" -q -n 'BEGIN { printf("%d\n", walltimestamp); exit(0); }' \
		>"$TMP/out" 2>"$TMP/err" || { echo "vm bench: session failed: $(cat "$TMP/err")" >&2; exit 1; }
	t1=$(date +%s%N)
	echo $(( ($(head -n 1 "$TMP/out") - t0) / 1000 )) >>"$TMP/begin"
	echo $(( (t1 - t0) / 1000 )) >>"$TMP/whole"
done
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", NR ? v[int((NR + 1) / 2)] / 1e6 : 0 }'; }
echo "vm attach: session start to BEGIN $(median <"$TMP/begin") s, whole BEGIN { exit(0); } session $(median <"$TMP/whole") s (median of $REPS sessions on one VM)"
