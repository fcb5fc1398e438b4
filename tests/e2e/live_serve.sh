#!/usr/bin/env bash
# machload's serve mode (issue 12 item 3, a system that stays busy): the
# counted words run as one round, again and again with a pause, until the
# machine is stopped.  Round k sits between machload:::phase-start and
# phase-done ("serve", k), so a session that ends at round 3's phase-done
# has counted exactly 3 rounds of work; without words, the default mix
# runs each of its phases once per round.  Nothing but the session's end
# stops it (machload never prints its done line).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-serve

N=7
live_run rounds "rt=$N serve=10" 'machload1:::phase-done /copyinstr(arg0) == "serve" && arg1 == 3/ { done = 1; exit(0); }
machload1:::round-trip /!done/ { @rt = count(); }
machload1:::phase-start /copyinstr(arg0) == "serve" && !done/ { @r = count(); }
END { printa("rt %@d\n", @rt); printa("rounds %@d\n", @r); }' -q
rc=$?
rt=$(val rt "$TMP/rounds.out"); r=$(val rounds "$TMP/rounds.out")
if [ $rc = 0 ] && [ "${rt:-x}" = $((3 * N)) ] && [ "${r:-x}" = 3 ] &&
   grep -q '^machload: serve round=3$' "$TMP/rounds.con" &&
   [ "$(grep -c "^machload: rt n=$N ok=$N " "$TMP/rounds.con")" -ge 3 ] &&
   ! grep -q '^machload: done' "$TMP/rounds.con"; then
	pass live-serve-rounds-exact
else
	fail live-serve-rounds-exact "exit $rc, round trips ${rt:-none} (want $((3 * N))), rounds ${r:-none}: $(head -c 300 "$TMP/rounds.err")"
fi

live_run mix "serve" 'machload1:::phase-done /copyinstr(arg0) == "serve" && arg1 == 2/ { exit(0); }
machload1:::phase-done /copyinstr(arg0) != "serve"/ { @[copyinstr(arg0)] = count(); }
END { printa("%s %@d\n", @); }' -q
rc=$?
got=$(sed -n 's/^\([a-z]*\) \([0-9]*\)$/\1=\2/p' "$TMP/mix.out" | sort | tr '\n' ' ')
if [ $rc = 0 ] && [ "$got" = "pages=2 pingpong=2 rpcs=2 rt=2 tasks=2 threads=2 " ]; then
	pass live-serve-default-mix
else
	fail live-serve-default-mix "exit $rc, phases per 2 rounds: '$got'"
fi

"$MACHTRACE" -n BEGIN --workload 'serve=1x' >/dev/null 2>"$TMP/bad"; rc=$?
if [ $rc != 0 ] && grep -q "unknown workload word 'serve=1x'" "$TMP/bad"; then
	pass live-serve-bad-word
else
	fail live-serve-bad-word "exit $rc: $(cat "$TMP/bad")"
fi
