#!/bin/sh
# Bad options, unreadable scripts, unmatched probes, syntax errors: exit 1
# with dtrace's messages.
check() {	# expected-rc stderr-pattern args...
	want=$1 pat=$2; shift 2
	"$MT" "$@" >/dev/null 2>"$T/err"; rc=$?
	[ $rc -eq "$want" ] || { echo "$*: exit $rc"; exit 1; }
	grep -q -- "$pat" "$T/err" || { echo "$*: $(cat "$T/err")"; exit 1; }
}
check 1 '^dtrace: failed to set -x nosuch: Invalid option name$' \
	-x nosuch -n BEGIN
check 1 '^dtrace: failed to set -x bufsize: Invalid value for specified option$' \
	-x bufsize=12q -n BEGIN
check 1 '^dtrace: failed to open /nonexistent/x.d: ' -s /nonexistent/x.d
check 1 'does not match any probes' -n 'nosuch:::'
check 1 '^dtrace: invalid probe specifier BEGIN { x = }: \[D_SYNTAX\] line 1: ' \
	-xerrtags -n 'BEGIN { x = }'
check 1 '^dtrace: no probes specified$' -q
