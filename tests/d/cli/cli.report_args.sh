#!/bin/sh
# machtrace report refuses bad command lines and unreadable traces with a
# message and a non-zero exit (2: usage), and writes no page then.
check() {	# expected-rc stderr-pattern args...
	want=$1 pat=$2; shift 2
	"$MT" report "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq "$want" ] || { echo "report $*: exit $rc, not $want: $(cat "$T/err")"; exit 1; }
	grep -q -- "$pat" "$T/err" || { echo "report $*: $(cat "$T/err")"; exit 1; }
}
check 2 '^machtrace report: a trace directory is needed$'
check 2 '^machtrace report: -o FILE is needed$' "$T"
check 2 '^machtrace report: unknown option --frob$' "$T" --frob -o "$T/r.html"
check 2 '^machtrace report: one trace directory only' "$T" "$T" -o "$T/r.html"
check 1 "^machtrace report: cannot open $T/none/metadata" "$T/none" -o "$T/r.html"
mkdir -p "$T/bad" && echo 'not CTF' > "$T/bad/metadata"
check 1 '^machtrace report: ' "$T/bad" -o "$T/r.html"
[ ! -e "$T/r.html" ] || { echo "a page was written for a bad trace"; exit 1; }
"$MT" report -h | grep -q '^Usage: machtrace report TRACE-DIR -o FILE.html' ||
	{ echo "report -h: no usage"; exit 1; }
