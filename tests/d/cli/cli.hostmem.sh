#!/bin/sh
# Host memory of the local target is bounded (issue 7 item 16).  Every run
# here is under `ulimit -v` (1.5 GB of address space): a run that really
# allocated what it was asked for (16 GB of buffers, 8 GB of string scratch
# for strsize=1g, 3.2 GB of speculation buffers for nspec=100000) could
# not succeed, so success here means the bound held.
unset _DTRACE_TESTING	# it implies quietresize; the notices are checked
# ASan reserves terabytes of shadow address space, which no `ulimit -v`
# allows: not in the sanitizer pass (tests/suites/san.sh sets MT_SANITIZED)
[ -n "${MT_SANITIZED:-}" ] && exit 0
ulimit -v 1500000 || { echo "SKIP: cannot set ulimit -v"; exit 0; }
prog='BEGIN{printf("%s\n","a");exit(0)}'
run() {	# expected-rc stderr-pattern args...
	want=$1 pat=$2; shift 2
	"$MT" -q "$@" -n "$prog" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq "$want" ] || { echo "$*: exit $rc, not $want: $(cat "$T/err")"; exit 1; }
	grep -q -- "$pat" "$T/err" || { echo "$*: $(cat "$T/err")"; exit 1; }
	if [ "$want" -eq 0 ] && [ "$(cat "$T/out")" != a ]; then
		echo "$*: output '$(cat "$T/out")'"; exit 1
	fi
}
# bufresize=manual: dtrace's "Not enough space", nothing allocated
run 1 '^dtrace: could not enable tracing: Not enough space' \
	-x bufresize=manual -x bufsize=16g
# strsize is never resized: 8 GB of scratch is refused
run 1 '^dtrace: could not enable tracing: Not enough space' -x strsize=1g
# bufresize=auto (the default) halves until it fits, and says so
run 0 '^dtrace: buffer size lowered to ' -x bufsize=16g
run 0 '^dtrace: speculation size lowered to ' -x nspec=100000
# -x lockmem sets the budget: 1g of buffer is halved to 32m under 64m
run 0 '^dtrace: buffer size lowered to 32m$' -x lockmem=64m -x bufsize=1g
run 0 '^dtrace: aggregation size lowered to ' -x lockmem=64m -x aggsize=1g
# quietresize keeps the notice quiet, as in dtrace
"$MT" -q -x quietresize -x lockmem=64m -x bufsize=1g -n "$prog" \
	>"$T/out" 2>"$T/err" && [ ! -s "$T/err" ] ||
	{ echo "quietresize: $(cat "$T/err")"; exit 1; }
exit 0
