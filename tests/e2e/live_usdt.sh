#!/usr/bin/env bash
# usdt: machload's <sys/sdt.h> probes, as machload1:machload:FUNC:NAME.
# Counts against machload's own report: round-trip fires once per rt
# round trip, phase-start/phase-done once per phase with its count (and
# the phase's name, a user string); the argument of round-trip is the
# round trip's index.  After detach the patched user text pages are the
# ELF's bytes again, and the kernel text the image's.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-usdt

# listing: one provider instance per task, pid 1 for the first module
"$MACHTRACE" -l -n 'machload*:::' >"$TMP/list.out" 2>&1
if grep -qE '^ *[0-9]+ +machload1 +machload +rt_once +round-trip$' "$TMP/list.out" &&
   grep -qE ' machload1 +machload +[a-z_]+ +phase-start$' "$TMP/list.out" &&
   grep -qE ' machload1 +machload +[a-z_]+ +phase-done$' "$TMP/list.out"; then
	pass live-usdt-list
else
	fail live-usdt-list "$(cat "$TMP/list.out")"
fi

N=300
prog='machload*:::round-trip { @n = count(); @s = sum(arg0); }
machload1:::phase-start { printf("start %s %d %d\n", copyinstr(arg0), arg1, ++starts); }
machload1:::phase-done { printf("done %s %d %d\n", copyinstr(arg0), arg1, ++dones); }
END { printa("n %@d\n", @n); printa("s %@d\n", @s); }'
MACHTRACE_TEXTCHECK=1 live_run rt "rt=$N pages=7 ports=5" "$prog" -q
rc=$?
workload_ok live-usdt-workload "$TMP/rt.con"
reported=$(sed -n 's/^machload: rt n=\([0-9]*\) .*/\1/p' "$TMP/rt.con")
n=$(val n "$TMP/rt.out"); s=$(val s "$TMP/rt.out")
if [ $rc = 0 ] && [ -n "$reported" ] && [ "${n:-x}" = "$reported" ] &&
   [ "${s:-x}" = $((N * (N - 1) / 2)) ]; then
	pass live-usdt-round-trip-count
else
	fail live-usdt-round-trip-count "exit $rc, count ${n:-none} sum ${s:-none}, machload rt n=${reported:-none}: $(head -c 300 "$TMP/rt.err")"
fi
# phases in order, each once, named: rt=N, pages=7, ports=5
if [ "$(grep -E '^(start|done) ' "$TMP/rt.out" | tr '\n' ' ')" = \
     "start rt $N 1 done rt $N 1 start pages 7 2 done pages 7 2 start ports 5 3 done ports 5 3 " ]; then
	pass live-usdt-phases
else
	fail live-usdt-phases "$(grep -E '^(start|done) ' "$TMP/rt.out" | tr '\n' ' ')"
fi
if grep -qE "user text identical to the programs \([1-9][0-9]* pages\)" "$TMP/rt.err" &&
   grep -q "kernel text identical to the image" "$TMP/rt.err"; then
	pass live-usdt-text-stock
else
	fail live-usdt-text-stock "$(grep text "$TMP/rt.err")"
fi
