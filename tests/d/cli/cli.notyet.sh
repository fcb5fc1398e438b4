#!/bin/sh
# A command the issues name but machtrace does not have yet says so plainly
# and fails, rather than being read as a D invocation ("no probes").
"$MT" top -b -n 1 >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "top: not there yet" "$T/err" && [ ! -s "$T/out" ] ||
	{ echo "machtrace top: exit $rc, stderr: $(cat "$T/err")"; exit 1; }
exit 0
