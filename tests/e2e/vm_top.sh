#!/usr/bin/env bash
# machtrace top on a running VM (issue 14 item 1): `top -b -n 3 --vm`
# prints three refreshes whose figures equal, interval by interval, those
# of an independent D program run in the same session (-s): its own
# aggregations keyed by its own interval counter, bumped by the same
# tick-1s firing as top's, so both cut time at the same events (no
# timing assertion).  Compared: every RPC routine's count, messages and
# context switches, faults by type, machload's (pid 1) sent, received and
# faults.  After top (and after a SIGINT, or the q key on a terminal),
# the VM still runs and its kernel text is stock.
set -u
. "$(dirname "$0")/vm_lib.sh"
need_vm vm-top "rpcs=5 pages=3 serve=200"

cat >"$TMP/chk.d" <<'D'
int c_iv;
ipc:::send { @c_rpc[c_iv, args[0]->msg_name] = count(); @c_msgs[c_iv] = count(); }
ipc:::send /arg1 && args[1]->pr_pid == 1/ { @c_snd1[c_iv] = count(); }
ipc:::receive /pid == 1/ { @c_rcv1[c_iv] = count(); }
sched:::on-cpu { @c_cs[c_iv] = count(); }
vm:::fault { @c_flt[c_iv, args[1] & 2 ? "write" : args[1] & 4 ? "exec" :
	args[1] ? "read" : "wire"] = count(); }
vm:::fault /pid == 1/ { @c_flt1[c_iv] = count(); }
tick-1s { c_iv++; }
END {
	printa("CHK rpc %d %s %@d\n", @c_rpc); printa("CHK msgs %d %@d\n", @c_msgs);
	printa("CHK ctxsw %d %@d\n", @c_cs); printa("CHK fault %d %s %@d\n", @c_flt);
	printa("CHK snd1 %d %@d\n", @c_snd1); printa("CHK rcv1 %d %@d\n", @c_rcv1);
	printa("CHK flt1 %d %@d\n", @c_flt1);
}
D
timeout 120 "$MACHTRACE" top --vm "$VM" -b -n 3 -s "$TMP/chk.d" >"$TMP/top.out" 2>"$TMP/top.err"
rc=$?

# top's figures as "KIND INTERVAL [NAME] COUNT" lines, interval from 0
awk '
/^machtrace top: refresh/ { iv = $4 - 1; sub(",", "", iv); mode = "" }
/^SYSTEM/ { print "ctxsw", iv, $5; print "msgs", iv, $8 }
/^FAULTS/ { print "fault", iv, "read", $4; print "fault", iv, "write", $6;
	    print "fault", iv, "exec", $8; w = $10; sub(";", "", w); print "fault", iv, "wire", w }
/^ +PID COMMAND/ { mode = "task"; next }
/^ROUTINE/ { mode = "rpc"; next }
/^$/ { mode = "" }
mode == "task" && $1 == 1 { print "snd1", iv, $4; print "rcv1", iv, $6; print "flt1", iv, $8 }
mode == "rpc" { print "rpc", iv, $1, $2 }
' "$TMP/top.out" | awk '$NF != 0' | sort >"$TMP/top.k"
# the check program's, the first three intervals
sed -n 's/^CHK //p' "$TMP/top.out" | awk '$2 <= 2 && $NF != 0' | sort >"$TMP/chk.k"
nref=$(grep -c '^machtrace top: refresh' "$TMP/top.out")
if [ $rc = 0 ] && [ "$nref" = 3 ] && [ -s "$TMP/chk.k" ] &&
   [ "$(grep -c '^rpc' "$TMP/chk.k")" -ge 6 ] && grep -q "^rpc 1 machload_echo " "$TMP/top.k" &&
   diff "$TMP/chk.k" "$TMP/top.k" >"$TMP/diff"; then
	pass vm-top-3-refreshes-equal-independent-d
else
	fail vm-top-3-refreshes-equal-independent-d "exit $rc, $nref refreshes, $(head -c 600 "$TMP/top.err") $(head -n 20 "$TMP/diff" | tr '\n' ' ')"
fi
if grep -q "^COUNTERS .*cache-misses, branch-mispredicts, tlb-misses: unavailable" "$TMP/top.out" &&
   grep -q "^HEALTH *[0-9][0-9]*/100" "$TMP/top.out"; then
	pass vm-top-counters-health
else
	fail vm-top-counters-health "$(grep -E '^(COUNTERS|HEALTH)' "$TMP/top.out" | head -n 2)"
fi
if text_stock && "$MACHTRACE" vm list 2>/dev/null | grep -qE "^$VM +running "; then
	pass vm-top-leaves-vm-running-stock
else
	fail vm-top-leaves-vm-running-stock "text stock? vm list: $("$MACHTRACE" vm list 2>&1 | tr '\n' ' ')"
fi

# interactive mode (ANSI clear per refresh) until SIGINT: a clean stop
timeout 60 "$MACHTRACE" top --vm "$VM" >"$TMP/i.out" 2>"$TMP/i.err" </dev/null &
pid=$!
for i in $(seq 1 200); do grep -q "refresh 2," "$TMP/i.out" 2>/dev/null && break; sleep 0.05; done
kill -INT $pid
wait $pid; rc=$?
if [ $rc = 0 ] && grep -q $'\033\[H\033\[2J' "$TMP/i.out" && text_stock &&
   "$MACHTRACE" --vm "$VM" -q -n 'BEGIN { exit(0); }' >/dev/null 2>&1; then
	pass vm-top-sigint-clean
else
	fail vm-top-sigint-clean "exit $rc: $(head -c 300 "$TMP/i.err")"
fi
# on a terminal (a pty): the q key stops it after the second refresh
cat >"$TMP/q.py" <<'PY'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out, sent, t0 = b"", False, time.time()
while time.time() - t0 < 60:
    if select.select([fd], [], [], 0.2)[0]:
        try:
            d = os.read(fd, 65536)
        except OSError:
            break
        if not d:
            break
        out += d
    if not sent and b"refresh 2," in out:
        os.write(fd, b"q")
        sent = True
print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), int(sent), out.count(b"\x1b[H\x1b[2J"))
PY
read -r qrc qsent qclears < <(python3 "$TMP/q.py" "$MACHTRACE" top --vm "$VM")
if [ "$qrc" = 0 ] && [ "$qsent" = 1 ] && [ "${qclears:-0}" -ge 2 ] && text_stock; then
	pass vm-top-q-key
else
	fail vm-top-q-key "exit $qrc, q sent $qsent, $qclears clears"
fi
"$MACHTRACE" vm stop "$VM" >/dev/null 2>&1
nothing_left vm-top-nothing-left
