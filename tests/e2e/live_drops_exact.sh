#!/usr/bin/env bash
# With a principal buffer far too small, every firing is accounted for:
# the records printed (data or error records) plus the drops reported
# equal the firings, counted by a count() in the same clause (aggregations
# are never dropped here).  Several runs: the loss this guards against
# (drops counted while the consumer printed its report) came and went
# with timing.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-drops-exact

# exact NAME: lines "x ..." and "dtrace: error on" + "dtrace: N drop(s) on
# CPU" == "n N"
exact() {
	local name=$1 x e d n
	x=$(grep -c '^x' "$TMP/$name.out")
	e=$(grep -c '^dtrace: error on enabled probe' "$TMP/$name.err")
	d=$(sed -n 's/^dtrace: \([0-9][0-9]*\) drops\{0,1\} on CPU.*/\1/p' "$TMP/$name.err" |
	    awk '{ s += $1 } END { print s + 0 }')
	n=$(val n "$TMP/$name.out")
	if [ "${n:-0}" -gt 0 ] && [ $((x + e + d)) = "$n" ] && [ "$d" -gt 0 ]; then
		pass "live-drops-exact-$name"
	else
		fail "live-drops-exact-$name" "printed $x, errors $e, drops $d, firings ${n:-none}: $(grep -v 'drops\{0,1\} on CPU' "$TMP/$name.err" | head -c 300)"
	fi
}

W='rt=1000 pingpong=0 pages=0 threads=0 tasks=0'
for i in 1 2 3 4; do
	live_run allfbt$i "rt=1000" 'fbt:::entry,fbt:::return { printf("x %s:%s %d\n", probefunc, probename, arg0); @n = count(); }
END { printa("n %@d\n", @n); }' -q -x bufsize=4k
	exact allfbt$i
done

# mach_msg_trap: at least 2N firings for N round trips, all accounted
live_run msg "$W" 'fbt::mach_msg_trap:entry { printf("x %d\n", arg1); @n = count(); }
END { printa("n %@d\n", @n); }' -q -x bufsize=1k
exact msg
n=$(val n "$TMP/msg.out")
if [ "${n:-0}" -ge 2000 ]; then
	pass live-drops-exact-msg-count
else
	fail live-drops-exact-msg-count "mach_msg_trap firings ${n:-none}, want >= 2000"
fi

# error records: a fault on every firing, reported or dropped
live_run err "$W" 'fbt::mach_msg_trap:entry { @n = count(); trace(*(int *)8); }
END { printa("n %@d\n", @n); }' -q -x bufsize=4k
exact err

# exit()'s own record is one like any other: in a full buffer it is
# dropped and counted among the drops, as dtrace does (the session still
# ends: the runtime's state says exit() ran), so its clause prints an "x"
# line and counts too
live_run exit "cpus=20000000" 'fbt:::entry { printf("x %d\n", arg0); @n = count(); }
tick-1s { printf("x exit\n"); @n = count(); exit(0); }
END { printa("n %@d\n", @n); }' -q -x bufsize=1k
echo "# exit()'s record: $(grep -c '^x exit$' "$TMP/exit.out") printed"
exact exit
