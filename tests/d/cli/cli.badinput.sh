#!/bin/sh
# Input machtrace used to accept silently (issue 7 item 15): each is
# refused with a message saying what is wrong and a non-zero exit, 2 for
# command-line usage errors as dtrace(1) exits.  None of the refused ones
# boots QEMU: they are refused before any target exists.
check() {	# expected-rc stderr-pattern args...
	want=$1 pat=$2; shift 2
	"$MT" "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq "$want" ] || { echo "$*: exit $rc, not $want: $(cat "$T/err")"; exit 1; }
	grep -q -- "$pat" "$T/err" || { echo "$*: $(cat "$T/err")"; exit 1; }
}
check 2 '^dtrace: unknown option --frobnicate$' --frobnicate
check 2 '^dtrace: unknown option --frobnicate$' --frobnicate=1 -n BEGIN
check 2 '^dtrace: option --mach takes no value$' --mach=yes -n BEGIN
check 2 '^dtrace: option --timeout needs a value$' -n BEGIN --timeout
check 2 "^dtrace: invalid --timeout value 'x'" --timeout x -n 'BEGIN{exit(0)}'
check 2 "^dtrace: invalid --timeout value '-1'" --timeout -1 -n 'BEGIN{exit(0)}'
check 2 "^dtrace: invalid --timeout value '0'" --timeout=0 -n 'BEGIN{exit(0)}'
check 2 "^dtrace: --workload: unknown workload word 'foo=3'" \
	--workload foo=3 -n 'BEGIN{exit(0)}'
check 2 "unknown workload word 'pages=x'" --workload 'rt=5 pages=x' -n BEGIN
check 1 '^dtrace: could not enable tracing: -x cpu=99999: no such CPU' \
	-x cpu=99999 -q -n 'BEGIN{exit(0)}'
mkdir -p "$T/dir"
check 1 "^dtrace: failed to open $T/dir: Is a directory$" -s "$T/dir"
# what is accepted still works (--workload boots the kernel: a workload
# word that panics it would race BEGIN's exit)
"$MT" -q --timeout 2.5 --workload 'rt=5 pages=1' -x cpu=0 \
	-n 'BEGIN{trace(1);exit(0)}' >"$T/out" 2>"$T/err" ||
	{ echo "valid options refused: $(cat "$T/err")"; exit 1; }
[ "$(cat "$T/out")" = 1 ] || { echo "output: $(cat "$T/out")"; exit 1; }
# machtrace boot validates its words too (before booting)
"$MT" boot -- nosuchword >/dev/null 2>"$T/err"; rc=$?
[ $rc -ne 0 ] && grep -q "unknown workload word 'nosuchword'" "$T/err" ||
	{ echo "boot nosuchword: exit $rc: $(cat "$T/err")"; exit 1; }
exit 0
