#!/usr/bin/env bash
# Run every test of the project and print one summary line at the end:
#   N passed, N failed
# Every suite prints "PASS name" / "FAIL name: why" lines; this script counts
# them.  The dtrace-utils conformance suite (../shared/conformance, when it
# exists) is scored separately: its score is printed, and one test asserts
# it does not fall below the floor in tests/conformance-floor.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
log=$BUILD/tests/results.txt
mkdir -p "$BUILD/tests"
: > "$log"

run_suite() {	# name, command...
	local name=$1; shift
	echo "== $name"
	"$@" 2>&1 | tee -a "$log" | grep -E '^(FAIL|PASS) ' | grep -v '^PASS ' || true
}

for t in $(find "$BUILD/tests/unit" -type f -perm -u+x -name 'test_*' 2>/dev/null | sort); do
	run_suite "unit ${t#$BUILD/tests/unit/}" "$t"
done
[ -x tests/run-d.sh ] && run_suite "D tests" tests/run-d.sh
for t in tests/e2e/*.sh; do
	[ -x "$t" ] && run_suite "e2e $(basename "$t")" "$t"
done

conf=$top/../shared/conformance/run
if [ -x "$conf" ]; then
	echo "== conformance (../shared/conformance)"
	"$conf" --dtrace "$BUILD/bin/machtrace" -j 2 --log "$BUILD/tests/conformance.log" \
		> "$BUILD/tests/conformance.out" 2>&1
	line=$(tail -n 1 "$BUILD/tests/conformance.out")
	cp=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	cf=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	floor=$(cat tests/conformance-floor 2>/dev/null || echo 0)
	if [ -n "$cp" ]; then
		total=$((cp + cf))
		pct=$(awk -v p="$cp" -v t="$total" 'BEGIN { printf "%.1f", t ? 100 * p / t : 0 }')
		echo "conformance score: $cp of $total tests ($pct%), floor $floor%"
		if awk -v p="$pct" -v f="$floor" 'BEGIN { exit !(p >= f) }'; then
			echo "PASS conformance-score>=$floor%" >> "$log"
		else
			echo "FAIL conformance-score>=$floor%: $pct%" | tee -a "$log"
		fi
	else
		echo "FAIL conformance: runner did not finish: $line" | tee -a "$log"
	fi
else
	echo "== conformance: ../shared/conformance not present, skipped"
fi

passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
