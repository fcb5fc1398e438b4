#!/usr/bin/env bash
# Run every test of the project and print one summary line at the end:
#   N passed, N failed, N skipped
# Every suite prints "PASS name", "FAIL name: why" or "SKIP name: why" lines.
# A suite is also judged by how it ends, so that a crash cannot hide behind
# the PASS lines printed before it:
#   - killed by a signal (a crash) or by the hang guard: FAIL
#   - non-zero exit with no FAIL line of its own: FAIL
#   - no PASS, FAIL or SKIP line at all: FAIL (nothing was tested)
# A check whose prerequisite is missing prints SKIP with the reason; skips
# are counted and listed, never passed.  The dtrace-utils conformance suite
# (../shared/conformance, when it exists) is scored separately: its score is
# printed, and one test asserts it does not fall below the floor in
# tests/conformance-floor.  Suites: unit programs, the D tests, the
# end-to-end tests (tests/e2e/*.sh), other suites run as wholes
# (tests/suites/*.sh), then the D and end-to-end tests again with the
# interpreter forced (tests/nojit.sh), then conformance with each
# engine.  RUNALL_UNIT_ONLY=1 runs only the unit programs found under
# $BUILD (the runner's own test uses it).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
log=$BUILD/tests/results.txt
mkdir -p "$BUILD/tests"
: > "$log"

# The hang guard of one suite, in seconds: a suite that runs longer is
# stopped and failed.  It bounds a hung test, it does not time anything.
GUARD=${MACHTRACE_SUITE_GUARD:-1200}

run_suite() {	# name, command...
	local name=$1 out rc start
	shift
	out=$BUILD/tests/suite.out
	start=$(date +%s)
	timeout -k 10 "$GUARD" "$@" > "$out" 2>&1 </dev/null
	rc=$?
	echo "== $name ($(( $(date +%s) - start ))s)"
	cat "$out" >> "$log"
	grep -E '^(FAIL|SKIP) ' "$out"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "FAIL $name: still running after ${GUARD}s, stopped" | tee -a "$log"
	elif [ "$rc" -gt 128 ]; then
		echo "FAIL $name: killed by signal $((rc - 128)) (crash)" | tee -a "$log"
	elif [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL $name: exit status $rc with no FAIL line: $(tail -n 3 "$out" | tr '\n' ' ')" |
			tee -a "$log"
	elif ! grep -qE '^(PASS|FAIL|SKIP) ' "$out"; then
		echo "FAIL $name: no test result printed: $(tail -n 3 "$out" | tr '\n' ' ')" |
			tee -a "$log"
	fi
}

for t in $(find "$BUILD/tests/unit" -type f -perm -u+x -name 'test_*' 2>/dev/null | sort); do
	run_suite "unit ${t#$BUILD/tests/unit/}" "$t"
done
if [ -z "${RUNALL_UNIT_ONLY:-}" ]; then
	[ -x tests/run-d.sh ] && run_suite "D tests" tests/run-d.sh
	for t in tests/e2e/*.sh tests/suites/*.sh; do
		[ -x "$t" ] && run_suite "${t#tests/}" "$t"
	done
	# again with the interpreter, the compiled probes' reference (but
	# the tests marked "# engines: once": they run each engine
	# themselves, or check only what the compiled engine does)
	[ -x tests/run-d.sh ] && run_suite "D tests (interpreter)" tests/nojit.sh tests/run-d.sh
	for t in tests/e2e/*.sh; do
		[ -x "$t" ] && ! grep -q '^# engines: once' "$t" &&
			run_suite "${t#tests/} (interpreter)" tests/nojit.sh "$t"
	done
fi

# conformance LABEL [VAR=VALUE...]: the suite's score, in the environment
# given, against the floor
conformance() {
	local label=$1 out line cp cf floor total pct
	shift
	out=$BUILD/tests/conformance$label.out
	echo "== conformance$label (../shared/conformance)"
	env "$@" "$conf" --dtrace "$BUILD/bin/machtrace" -j 2 \
		--log "$BUILD/tests/conformance$label.log" > "$out" 2>&1
	line=$(tail -n 1 "$out")
	cp=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	cf=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	floor=$(cat tests/conformance-floor 2>/dev/null || echo 0)
	if [ -n "$cp" ]; then
		total=$((cp + cf))
		pct=$(awk -v p="$cp" -v t="$total" 'BEGIN { printf "%.1f", t ? 100 * p / t : 0 }')
		echo "conformance$label score: $cp of $total tests ($pct%), floor $floor%"
		if awk -v p="$pct" -v f="$floor" 'BEGIN { exit !(p >= f) }'; then
			echo "PASS conformance$label-score>=$floor%" >> "$log"
		else
			echo "FAIL conformance$label-score>=$floor%: $pct%" | tee -a "$log"
		fi
	else
		echo "FAIL conformance$label: runner did not finish: $line" | tee -a "$log"
	fi
}

conf=$top/../shared/conformance/run
if [ -n "${RUNALL_UNIT_ONLY:-}" ]; then
	:
elif [ -x "$conf" ]; then
	conformance ""
	conformance "-interpreter" MACHTRACE_NOJIT=1
else
	echo "SKIP conformance: ../shared/conformance is not beside the project" | tee -a "$log"
fi

passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^SKIP ' "$log")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
