#!/bin/sh
# Global variable ids are 16 bits, from 0x500 below 0xffff as dtrace's
# (issue 22 item 16): 64,255 globals compile and run, the 64,256th is
# refused with dtrace's D_ID_OFLOW, never given an id that wraps onto g0's.
gen() {	# count file
	awk -v n="$1" 'BEGIN { printf "BEGIN {"; for (i = 0; i < n; i++)
		printf " g%d = %d;", i, i; print " printf(\"%d %d\\n\", g0, g64254); exit(0); }" }' >"$2"
}
gen 64255 "$T/ok.d"
"$MT" -q -s "$T/ok.d" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$T/out")" = "0 64254" ] ||
	{ echo "64255 globals: exit $rc: $(head -c 200 "$T/out" "$T/err")"; exit 1; }
gen 64256 "$T/over.d"
"$MT" -xerrtags -e -s "$T/over.d" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q '\[D_ID_OFLOW\] line 1: cannot create g64255: limit on number of global variables exceeded' "$T/err" ||
	{ echo "64256 globals: exit $rc: $(head -c 200 "$T/err")"; exit 1; }
exit 0
