#!/usr/bin/env bash
# The test runner judges a suite by how it ends, not only by its PASS lines:
# a unit program that crashes after a PASS, exits non-zero without a FAIL
# line, prints nothing, or hangs is a failure; a SKIP is counted apart.
set -u
cd "$(dirname "$0")/../.."
T=$(mktemp -d /tmp/mt-runner.XXXXXX)
trap 'rm -rf "$T"' EXIT
u=$T/b/tests/unit/x
mkdir -p "$u"
mk() { printf '#!/bin/sh\n%s\n' "$2" > "$u/$1"; chmod +x "$u/$1"; }
mk test_a_crash 'echo "PASS a"; kill -SEGV $$'
mk test_b_exit 'echo "PASS b"; exit 3'
mk test_c_silent 'echo hello'
mk test_d_skip 'echo "SKIP d: no prerequisite"'
mk test_e_hang 'echo "PASS e"; sleep 30'
mk test_f_good 'echo "PASS f"'
RUNALL_UNIT_ONLY=1 MACHTRACE_SUITE_GUARD=2 BUILD=$T/b tests/run-all.sh > "$T/out" 2>&1
rc=$?
check() {	# name, pattern
	if grep -q "$2" "$T/out"; then echo "PASS runner-$1"; else echo "FAIL runner-$1: no '$2' in: $(tr '\n' ' ' < "$T/out")"; fi
}
check crash-after-pass 'FAIL unit x/test_a_crash: killed by signal 11'
check exit-without-fail 'FAIL unit x/test_b_exit: exit status 3'
check nothing-printed 'FAIL unit x/test_c_silent: no test result'
check hang-stopped 'FAIL unit x/test_e_hang: still running'
check summary '^4 passed, 4 failed, 1 skipped$'
[ "$rc" -ne 0 ] && echo "PASS runner-nonzero-exit" || echo "FAIL runner-nonzero-exit: exit 0 with failures"
