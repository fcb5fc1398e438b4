#!/usr/bin/env bash
# The sanitizer pass of `make check`: the unit tests, the D tests, the
# command line's leak check, one kernel session, the end-to-end tests of
# what users run (record, export, report, --disk, top, a VM) and the
# conformance suite again, with the ASan + UBSan build of `make san-build`
# (build/san: host code and hosted runtime, -fno-sanitize-recover).
#
# Every sanitizer report is written to a file of its own (log_path), so a
# report is seen even when the process that hit it was expected to fail or
# was a child of a test; each one becomes a FAIL line naming its first
# error line.  Prints "PASS san ..." / "FAIL san ...: why" lines and exits
# 1 when any line is a FAIL.
#   tests/suites/san.sh [--no-conformance]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
SAN=${SAN_BUILD:-build/san}
conformance=1
[ "${1:-}" = --no-conformance ] && conformance=0

if [ ! -x "$SAN/bin/machtrace" ]; then
	echo "FAIL san build: $SAN/bin/machtrace missing (make san-build)"
	exit 1
fi

rep=$(mktemp -d "${TMPDIR:-/tmp}/mt-san.XXXXXX")
# the reports of this run are kept here for reading
rm -rf "$top/build/tests/san-reports"
trap 'rm -rf "$rep"' EXIT INT TERM
# Leaks are reported in the unit tests (library code), the command line's
# own cases below, the kernel session and the end-to-end tests; the D
# tests and the conformance suite (many sessions ended by errors and
# signals) run without the leak check.
asan="log_path=$rep/asan:abort_on_error=0:exitcode=86:strict_string_checks=1:detect_stack_use_after_return=1"
export ASAN_OPTIONS="$asan:detect_leaks=1"
export UBSAN_OPTIONS="log_path=$rep/ubsan:print_stacktrace=1:halt_on_error=1:exitcode=86"
export LSAN_OPTIONS="log_path=$rep/lsan"
# tests that cannot run under ASan (ulimit -v) look at this
export MT_SANITIZED=1
fail=0

# FAIL lines for the reports written since the last call, under a label.
reports() {	# label
	local f
	for f in "$rep"/*; do
		[ -f "$f" ] || continue
		local what
		what=$(grep -m1 -E 'ERROR: |runtime error:' "$f" | sed 's/^==[0-9]*==//')
		[ -n "$what" ] || what=$(head -n 1 "$f")
		echo "FAIL san report ($1): $what"
		grep -m3 -E '^ *#[0-9]+ ' "$f" | sed 's/^/    /'
		mkdir -p "$top/build/tests/san-reports"
		cp "$f" "$top/build/tests/san-reports/"
		rm -f "$f"
		fail=1
	done
}

for t in $(find "$SAN/tests/unit" -type f -perm -u+x -name 'test_*' | sort); do
	name=${t#"$SAN"/tests/unit/}
	out=$("$t" 2>&1); rc=$?
	nfail=$(printf '%s\n' "$out" | grep -c '^FAIL ')
	if [ $rc -eq 0 ] && [ "$nfail" -eq 0 ]; then
		echo "PASS san unit $name"
	else
		echo "FAIL san unit $name: exit $rc, $nfail FAIL lines: $(printf '%s\n' "$out" | grep -m1 '^FAIL ')"
		fail=1
	fi
	reports "unit $name"
done

export ASAN_OPTIONS="$asan:detect_leaks=0"
tests/run-d.sh "$SAN/bin/machtrace" > "$rep.d.out" 2>&1
drc=$?
npass=$(grep -c '^PASS ' "$rep.d.out")
nfail=$(grep -c '^FAIL ' "$rep.d.out")
if [ $drc -eq 0 ] && [ "$nfail" -eq 0 ]; then
	echo "PASS san D tests ($npass)"
else
	echo "FAIL san D tests: $nfail of $((npass + nfail)) failed"
	grep '^FAIL ' "$rep.d.out" | head -n 20 | sed 's/^FAIL /    /'
	fail=1
fi
rm -f "$rep.d.out"
reports "D tests"

# The command line frees what it allocated on every way out (a leak
# report is a FAIL): help, version, -e, a local session, a compile error,
# a refused option, top's program.
export ASAN_OPTIONS="$asan:detect_leaks=1"
for args in -h -V "-e -n BEGIN{}" "-e -v -n BEGIN{}" "-q -n BEGIN{exit(0);}" \
	    "-n BEGIN{x=}" "-x cpu=3 -n BEGIN{exit(0);}" "top --program"; do
	# shellcheck disable=SC2086 # the words are the arguments
	"$SAN/bin/machtrace" $args >/dev/null 2>&1 </dev/null
done
if [ -n "$(ls "$rep")" ]; then
	reports "command line"
else
	echo "PASS san command line: no leak"
fi

# One kernel session (QEMU, the plain build's stock kernel): the live
# target's host side, which the D tests do not reach; no user probes, so
# empty tables are copied into the guest.
if [ -f build/kernel/gnumach-dbg ]; then
	out=$(timeout 120 "$SAN/bin/machtrace" -q \
		-n 'fbt::mach_msg_trap:entry { @ = count(); } tick-1s { exit(0); }' 2>&1)
	krc=$?
	if [ $krc -eq 0 ]; then
		echo "PASS san kernel session"
	else
		echo "FAIL san kernel session: exit $krc: $(printf '%s\n' "$out" | head -n 3 | tr '\n' '|')"
		fail=1
	fi
	reports "kernel session"
else
	echo "SKIP san kernel session: no build/kernel/gnumach-dbg (make setup)"
fi

# What users run, by the end-to-end tests themselves (about 40 s): record
# and export (live_record), report, --disk (a kernel without DWARF), top,
# a VM's lifecycle.  Their own SKIP lines say what is missing.
export ASAN_OPTIONS="$asan:detect_leaks=1"
for t in live_record live_report live_disk live_top vm_lifecycle; do
	out=$(MACHTRACE=$SAN/bin/machtrace timeout 300 "tests/e2e/$t.sh" 2>&1)
	erc=$?
	npass=$(printf '%s\n' "$out" | grep -c '^PASS ')
	nfail=$(printf '%s\n' "$out" | grep -c '^FAIL ')
	if [ $erc -eq 0 ] && [ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]; then
		echo "PASS san e2e $t ($npass)"
	elif [ $erc -eq 0 ] && [ "$nfail" -eq 0 ]; then
		printf '%s\n' "$out" | grep -m1 '^SKIP ' | sed 's/^SKIP /SKIP san e2e /'
	else
		echo "FAIL san e2e $t: exit $erc, $nfail FAIL lines: $(printf '%s\n' "$out" | grep -m1 '^FAIL ')"
		fail=1
	fi
	reports "e2e $t"
done

# as tests/run-all.sh: the suite beside the checkout (or $MT_CONFORMANCE)
conf=${MT_CONFORMANCE:-$top/../shared/conformance/run}
if [ $conformance -eq 1 ] && [ -x "$conf" ]; then
	mkdir -p build/tests
	"$conf" --dtrace "$SAN/bin/machtrace" -j 2 --log build/tests/san-conformance.log \
		> build/tests/san-conformance.out 2>&1
	line=$(tail -n 1 build/tests/san-conformance.out)
	floor=$(cat tests/conformance-floor 2>/dev/null || echo 0)
	cp=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	cf=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	if [ -z "$cp" ]; then
		echo "FAIL san conformance: runner did not finish: $line"
		fail=1
	elif awk -v p="$cp" -v f="$cf" -v fl="$floor" \
		'BEGIN { exit !(p + f > 0 && 100 * p / (p + f) >= fl) }'; then
		echo "PASS san conformance ($cp of $((cp + cf)), floor $floor%)"
	else
		echo "FAIL san conformance: $cp of $((cp + cf)) below the floor $floor%"
		fail=1
	fi
	reports conformance
elif [ $conformance -eq 1 ]; then
	echo "SKIP san conformance: $conf not present"
fi
[ $fail -eq 0 ]
