#!/bin/sh
# Run the project's own D tests (tests/d/**), from the repository root:
#   tst.NAME.d      must exit 0; with tst.NAME.r, the output must match it
#                   exactly (stdout, then "-- @@stderr --" and stderr when
#                   stderr is not empty)
#   err.D_TAG.NAME.d  must exit 1 with [D_TAG] on stderr (run -xerrtags);
#                   with err.D_TAG.NAME.r, the output must match too
# A test may add command-line options with a comment "@@runtest-opts: ...",
# and require a line of stderr to match a basic regular expression with
# "@@stderr-match: RE" (for output whose exact wording varies, e.g. counts).
# tests/d/**/cli.NAME.sh are shell checks of the command line: run with
# $MT (the command) and $T (a scratch directory), they pass by exiting 0
# and say why on stdout otherwise.
# Prints one "PASS path" or "FAIL path: why" line per test; exits 1 if any
# test failed.  Usage: tests/run-d.sh [MACHTRACE] [DIR]
MT=${1:-build/bin/machtrace}
DIR=${2:-tests/d}
TMP=${TMPDIR:-/tmp}/mt-run-d.$$
mkdir -p "$TMP" || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
export _DTRACE_TESTING=t LANGUAGE=C LC_ALL=C
fail=0

for t in $(find "$DIR" -name 'tst.*.d' -o -name 'err.*.d' | sort); do
	base=$(basename "$t")
	opts=$(sed -n 's/.*@@runtest-opts: *\([^*]*\).*/\1/p' "$t" | head -1)
	expect_rc=0
	tag=
	case "$base" in
	err.D_*)
		tag=$(echo "$base" | sed 's/^err\.\(D_[A-Z0-9_]*\)\..*/\1/')
		expect_rc=1
		opts="-xerrtags $opts" ;;
	err.*)
		expect_rc=1 ;;
	esac
	# shellcheck disable=SC2086
	timeout 30 "$MT" $opts -s "$t" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	if [ -n "$tag" ] && ! grep -q "\[$tag\]" "$TMP/err"; then
		echo "FAIL $t: expected [$tag] on stderr: $(head -c 300 "$TMP/err")"
		fail=1
		continue
	fi
	if [ "$rc" -ne "$expect_rc" ]; then
		echo "FAIL $t: exit $rc, expected $expect_rc: $(head -c 300 "$TMP/err")"
		fail=1
		continue
	fi
	re=$(sed -n -e 's/.*@@stderr-match: *\(.*[^ ]\) *\*\/.*/\1/p;t' \
		-e 's/.*@@stderr-match: *\(.*[^ ]\) *$/\1/p' "$t" | head -1)
	if [ -n "$re" ] && ! grep -q -- "$re" "$TMP/err"; then
		echo "FAIL $t: no stderr line matches '$re': $(head -c 300 "$TMP/err")"
		fail=1
		continue
	fi
	r=${t%.d}.r
	if [ -f "$r" ]; then
		cp "$TMP/out" "$TMP/got"
		if [ -s "$TMP/err" ]; then
			echo "-- @@stderr --" >>"$TMP/got"
			cat "$TMP/err" >>"$TMP/got"
		fi
		if ! cmp -s "$r" "$TMP/got"; then
			echo "FAIL $t: output differs: $(diff "$r" "$TMP/got" | head -8 | tr '\n' '|')"
			fail=1
			continue
		fi
	fi
	echo "PASS $t"
done

for t in $(find "$DIR" -name 'cli.*.sh' | sort); do
	mkdir -p "$TMP/cli"
	why=$(MT=$MT T=$TMP/cli timeout 60 sh "$t" </dev/null 2>&1)
	if [ $? -eq 0 ]; then
		echo "PASS $t"
	else
		echo "FAIL $t: $(echo "$why" | head -3 | tr '\n' '|')"
		fail=1
	fi
done
exit $fail
