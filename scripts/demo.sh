#!/usr/bin/env bash
# make demo: run a few D programs.  Today they run on the local target
# (dtrace:::BEGIN/END, profile:::tick-N); see README for the GNU Mach status.
set -u
mt=${MACHTRACE:-build/bin/machtrace}
run() {
	echo "\$ machtrace $*"
	"$mt" "$@"
	echo
}
run -q -n 'BEGIN { printf("hello from machtrace: %d + %d = %d\n", 1, 2, 1 + 2); exit(0); }'
run -q -n 'BEGIN { @[1] = quantize(7); exit(0); }'
run -q -n 'tick-10ms { @ticks = count(); @q = quantize(timestamp % 1000); } tick-200ms { exit(0); }'
run -q -n 'BEGIN { s = "GNU Mach"; printf("%s has %d chars, upper %s\n", s, strlen(s), toupper(s)); exit(0); }'
