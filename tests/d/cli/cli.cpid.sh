#!/bin/sh
# -c and -p (issue 10 item 5): bad input is refused before anything boots,
# with dtrace's wording and a non-zero exit; $target is 0 without either
# (dtrace's rule) and, like every macro variable, expands inside a probe
# description (pid$target); an undefined one is an error there too.
# The live behaviour (the -c program traced to its exit, -p, $target in
# predicates): tests/e2e/live_target.sh.
expect() {	# rc message args...
	rc=$1 msg=$2
	shift 2
	"$MT" "$@" >"$T/out" 2>"$T/err"; got=$?
	[ $got -eq "$rc" ] && grep -q -- "$msg" "$T/err" ||
		{ echo "$*: exit $got, wanted $rc and '$msg': $(cat "$T/err")"; exit 1; }
}
expect 1 'failed to execute /nonexistent/prog: No such file' -n BEGIN -c /nonexistent/prog
expect 1 'failed to execute /etc/hostname: not an ELF64 program' -n BEGIN -c /etc/hostname
expect 1 "unknown workload word 'bogus'" -n BEGIN -c 'machload rt=2 bogus'
expect 1 "both give machload's words" -n BEGIN -c 'machload rt=2' --workload rt=3
expect 2 'invalid process ID: 12x' -n BEGIN -p 12x
expect 2 'invalid process ID: -3' -n BEGIN -p -3
expect 2 'only one -c or -p target' -n BEGIN -p 1 -c machload
expect 2 'only one -c or -p target' -n BEGIN -p 1 -p 2
"$MT" -q -n 'BEGIN { printf("%d\n", $target); exit(0); }' >"$T/out" 2>"$T/err" &&
	[ "$(cat "$T/out")" = 0 ] || { echo "\$target without -c/-p: $(cat "$T/out" "$T/err")"; exit 1; }
# $target is 0 here: tick-1$target is tick-10
"$MT" -q -n 'tick-1$target { printf("%s\n", probename); exit(0); }' >"$T/out" 2>"$T/err" &&
	[ "$(cat "$T/out")" = tick-10 ] || { echo "tick-1\$target: $(cat "$T/out" "$T/err")"; exit 1; }
expect 1 'invalid probe specifier BEGIN\$nosuch: line 1: macro variable \$nosuch is not defined' -e -n 'BEGIN$nosuch'
"$MT" -h >"$T/out" 2>&1
grep -q "^	-c 'machload WORDS' or -c 'PATH ARGS'" "$T/out" ||
	{ echo "machtrace -h does not describe -c"; exit 1; }
exit 0
