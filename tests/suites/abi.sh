#!/usr/bin/env bash
# No dead fields in the runtime's shared counters and control block
# (include/machtrace/abi.h): every field of struct mt_cb and struct
# mt_cpustat is written somewhere in the runtime or a target, so a counter
# the consumer reports can be non-zero and a field the host sets is read.
set -u
cd "$(dirname "$0")/../.."
H=include/machtrace/abi.h
SRC="runtime targets link"

fields() {	# struct name: its field names, one a line
	awk -v s="struct $1 {" '
		index($0, s) == 1 { on = 1; next }
		on && /^};/ { exit }
		on && /^\t[a-z_0-9]+ [a-z_0-9, ]+;/ {
			sub(/;.*/, ""); sub(/^\t[a-z_0-9]+ /, "")
			n = split($0, f, /, */); for (i = 1; i <= n; i++) print f[i]
		}' "$H"
}

check() {	# struct, a regex of how its fields are reached in the sources
	local st=$1 ptr=$2 f n=0 dead=
	for f in $(fields "$st"); do
		[ "$f" = pad ] && continue
		n=$((n + 1))
		grep -rqE "$ptr$f( = |\+\+| \+= )|&$ptr$f, " $SRC ||
			dead="$dead $f"
	done
	if [ "$n" -eq 0 ]; then
		echo "FAIL abi-no-dead-fields-$st: no fields found in $H"
	elif [ -n "$dead" ]; then
		echo "FAIL abi-no-dead-fields-$st: never written:$dead"
	else
		echo "PASS abi-no-dead-fields-$st"
	fi
}
check mt_cb '[a-z_.>-]*cb->'
check mt_cpustat '([a-z_.>-]*stat->|cpustat\[[a-z_]*\]\.)'
