#!/usr/bin/env bash
# Sizes larger than the kernel's reserved region can hold are lowered as
# dtrace's bufresize=auto does ("buffer size lowered to ..."), and the
# lowered buffers still carry every record (each printf line matches the
# kernel's count); bufresize=manual refuses them with "Not enough space",
# naming the bound (issue 21 item 13).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-bufresize
unset _DTRACE_TESTING	# it implies quietresize; the notices are checked

W='rt=2000 pingpong=0 pages=0 threads=0 tasks=0'
P='fbt::mach_msg_trap:entry { @c = count(); printf("x\n"); }
END { printa("t %@d\n", @c); }'

# check NAME RE: exit 0, RE on stderr, one "x" line per counted firing
check() {
	local name=$1 re=$2 rc=$3 t x
	t=$(val t "$TMP/$name.out")
	x=$(grep -c '^x$' "$TMP/$name.out")
	if [ "$rc" = 0 ] && grep -q -- "$re" "$TMP/$name.err" &&
	   [ "${t:-0}" -gt 0 ] && [ "$x" = "$t" ]; then
		pass "live-bufresize-$name"
	else
		fail "live-bufresize-$name" "exit $rc, $x lines for count ${t:-none}: $(head -c 300 "$TMP/$name.err")"
	fi
}

live_run buf "$W" "$P" -q -x bufsize=400m
check buf '^dtrace: buffer size lowered to [0-9]' $?
live_run agg "$W" "$P" -q -x aggsize=1g
check agg '^dtrace: aggregation size lowered to [0-9]' $?

live_run manual "$W" "$P" -q -x bufresize=manual -x bufsize=400m
rc=$?
if [ $rc = 1 ] && grep -q "^dtrace: could not enable tracing: Not enough space (.*reserved region" "$TMP/manual.err"; then
	pass live-bufresize-manual
else
	fail live-bufresize-manual "exit $rc: $(head -c 300 "$TMP/manual.err")"
fi
