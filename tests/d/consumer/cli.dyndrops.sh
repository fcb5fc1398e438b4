#!/bin/sh
# Dynamic variable drops are reported when dtrace checks its status (the
# first check, then once per statusrate, and when tracing stops), each
# line summing the drops since the previous one: 500 stores into a tiny
# dynvarsize within one statusrate are one "N dynamic variable drops"
# line, and N plus the stores that took is 500.
prog='BEGIN { i = 0; }
tick-1ms /i < 500/ { a[i] = 1; @ok = sum(a[i] != 0); i++; }
tick-1ms /i >= 500/ { exit(0); }
END { printa("ok %@d\n", @ok); }'
run() {	# max-lines options...
	max=$1; shift
	"$MT" -q -x dynvarsize=1k "$@" -n "$prog" >"$T/out" 2>"$T/err" ||
		{ echo "$*: exit $?: $(cat "$T/err")"; exit 1; }
	ok=$(sed -n 's/^ok \([0-9]*\)$/\1/p' "$T/out")
	lines=$(grep -c 'dynamic variable drop' "$T/err")
	n=$(sed -n 's/^dtrace: \([0-9]*\) dynamic variable drops*$/\1/p' "$T/err" |
		awk '{ s += $1 } END { print s + 0 }')
	[ -n "$ok" ] && [ $((n + ok)) -eq 500 ] && [ "$n" -gt 0 ] ||
		{ echo "$*: $n drops + $ok stores is not 500: $(cat "$T/err")"; exit 1; }
	[ "$lines" -ge 1 ] && [ "$lines" -le "$max" ] ||
		{ echo "$*: $lines drop lines, at most $max: $(head -3 "$T/err")"; exit 1; }
}
run 1 -x statusrate=10s
# a status check every 100ms: a few lines (0.5 s of firings), same sum
run 8 -x statusrate=100ms
exit 0
