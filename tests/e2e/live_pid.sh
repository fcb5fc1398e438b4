#!/usr/bin/env bash
# pid provider on machload (pid 1): rt_once is called once per rt round
# trip (machload.c says so), so its entry and return probes count exactly
# machload's reported n; arg1 at entry is the round trip's index, arg1 at
# return its result (1: the message came back).  An offset probe on its
# second instruction fires as often.  An offset inside an instruction,
# and one on an instruction the blob cannot emulate (the call), are
# refused at link time with the reason.  uregs[] and ustack() see the
# user registers at the probe.  After detach the user text is
# the ELF's again.  Children sharing the text page do not fire pid 1's
# probes; a target that exits takes its sites with it.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-pid

ML=$BUILD/guest/machload
# offsets (hex, as dtrace's) of rt_once's instructions, and their mnemonics
objdump -d --no-show-raw-insn "$ML" >"$TMP/dis"
sed -n '/^[0-9a-f]* <rt_once>:$/,/^$/p' "$TMP/dis" |
	sed -n 's/^ *\([0-9a-f]*\):[[:space:]]*\([a-z0-9]*\).*/\1 \2/p' >"$TMP/addrs"
base= prev= second= call= inside=
while read -r a m; do
	n=$((16#$a))
	[ -z "$base" ] && base=$n
	off=$((n - base))
	[ -n "$prev" ] && [ -z "$second" ] && second=$(printf %x $off)
	[ -n "$prev" ] && [ -z "$inside" ] && [ $off -gt $((prev + 1)) ] && inside=$(printf %x $((prev + 1)))
	[ "$m" = call ] && [ -z "$call" ] && call=$(printf %x $off)
	prev=$off
done <"$TMP/addrs"
if [ -z "$second" ] || [ -z "$call" ] || [ -z "$inside" ]; then
	fail live-pid-offsets "cannot read rt_once's instructions: $(cat "$TMP/addrs")"
	exit 0
fi

N=250
prog="pid1:machload:rt_once:entry { @e = count(); @s = sum(arg1); }
pid1:machload:rt_once:return { @r = count(); @ok = sum(arg1); }
pid1:a.out:rt_once:$second { @o = count(); }
pid1:machload:rt_once:entry /arg1 == 1/ { printf(\"regs %x %d %d\\n\", uregs[R_PC], uregs[R_RSI], uregs[R_RDI] == arg0); }
machload1:::round-trip /arg0 == 2/ { ustack(); }
pid1:machload:rt_once:entry /arg1 == 3/ { printf(\"entry-stack\"); ustack(); }
END { printa(\"e %@d\n\", @e); printa(\"s %@d\n\", @s); printa(\"r %@d\n\", @r);
	printa(\"ok %@d\n\", @ok); printa(\"o %@d\n\", @o); }"
MACHTRACE_TEXTCHECK=1 live_run rt "rt=$N pages=3" "$prog" -q
rc=$?
workload_ok live-pid-workload "$TMP/rt.con"
reported=$(sed -n 's/^machload: rt n=\([0-9]*\) ok=\([0-9]*\).*/\1 \2/p' "$TMP/rt.con")
e=$(val e "$TMP/rt.out"); s=$(val s "$TMP/rt.out"); r=$(val r "$TMP/rt.out")
ok=$(val ok "$TMP/rt.out"); o=$(val o "$TMP/rt.out")
if [ $rc = 0 ] && [ "$reported" = "$N $N" ] && [ "${e:-x}" = $N ] &&
   [ "${s:-x}" = $((N * (N - 1) / 2)) ]; then
	pass live-pid-entry-count
else
	fail live-pid-entry-count "exit $rc, entries ${e:-none} (sum of indices ${s:-none}), machload: ${reported:-none}: $(head -c 300 "$TMP/rt.err")"
fi
if [ "${r:-x}" = $N ] && [ "${ok:-x}" = $N ]; then
	pass live-pid-return-count
else
	fail live-pid-return-count "returns ${r:-none}, ok results ${ok:-none}, want $N"
fi
if [ "${o:-x}" = $N ]; then
	pass live-pid-offset-fires
else
	fail live-pid-offset-fires "rt_once:$second fired ${o:-none} times, want $N"
fi
# uregs[] and ustack() in user probes: the registers at the probe
# (R_PC its address), the stack from the usdt site in rt_once up
base=$(sed -n 's/^\([0-9a-f]*\) <rt_once>:$/\1/p' "$TMP/dis" | sed 's/^0*//')
if grep -q "^regs $base 1 1\$" "$TMP/rt.out" &&
   grep -q 'machload`rt_once+0x' "$TMP/rt.out" && grep -q 'machload`do_rt+0x' "$TMP/rt.out"; then
	pass live-pid-uregs-ustack
else
	fail live-pid-uregs-ustack "want regs $base 1 1 and a stack through rt_once and do_rt: $(grep -v '^[a-z]* [0-9]*$' "$TMP/rt.out" | head -c 400)"
fi
# at an entry the frame is not built: the caller comes from rsp (illumos'
# CPU_DTRACE_ENTRY rule), so do_rt is the second frame, not skipped
estack=$(sed -n '/^entry-stack$/,/^$/p' "$TMP/rt.out" | sed -n '2,3p' | tr -s ' \n' ' ')
case "$estack" in
" machload\`rt_once machload\`do_rt+0x"*) pass live-pid-entry-ustack ;;
*) fail live-pid-entry-ustack "want rt_once then do_rt, got '$estack'" ;;
esac
if grep -q "user text identical to the programs" "$TMP/rt.err" &&
   grep -q "kernel text identical to the image" "$TMP/rt.err"; then
	pass live-pid-text-stock
else
	fail live-pid-text-stock "$(grep text "$TMP/rt.err")"
fi

# refusals, before anything boots
for off in "$inside" "$call"; do
	timeout 60 "$MACHTRACE" -n "pid1:machload:rt_once:$off { }" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	case $off in
	"$inside") want="offset 0x$off is not an instruction boundary of rt_once" ;;
	*) want="'call .*' cannot be emulated by a user probe" ;;
	esac
	if [ $rc != 0 ] && grep -q "pid1:machload:rt_once:$off: cannot probe: $want" "$TMP/bad.err"; then
		pass "live-pid-refused-$off"
	else
		fail "live-pid-refused-$off" "exit $rc: $(head -c 300 "$TMP/bad.err")"
	fi
done

# children sharing machload's text copy-on-write (forks=2: 5 round trips
# each through rt_once) hit the same int3s: the probe of pid 1 fires for
# pid 1 only, and the children run on (each one's send and receive traps)
N=12
live_run forks "rt=$N forks=2" 'pid1:machload:rt_once:entry { @e[pid] = count(); }
fbt::mach_msg_trap:entry /pid > 1/ { @t[pid] = count(); }
END { printa("e %d %@d\n", @e); printa("t %d %@d\n", @t); }' -q
rc=$?
got=$(grep -E '^[et] ' "$TMP/forks.out" | sort | tr '\n' ' ')
if [ $rc = 0 ] && grep -q '^machload: forks n=2 ok=2 ' "$TMP/forks.con" &&
   [ "$got" = "e 1 $N t 2 10 t 3 10 " ]; then
	pass live-pid-cow-children
else
	fail live-pid-cow-children "exit $rc, got '$got' (want e 1 $N, 10 traps in pids 2 and 3): $(grep -E 'forks' "$TMP/forks.con") $(head -c 300 "$TMP/forks.err")"
fi

# -c: pid$target names machload's provider; machload terminates itself
# ('exit'), so its sites go at machine_task_terminate, before its memory
N=40
MACHTRACE_CONSOLE_LOG=$TMP/c.con MACHTRACE_TEXTCHECK=1 timeout 240 "$MACHTRACE" --timeout 200 \
	-c "machload rt=$N exit" -q \
	-n 'pid$target:machload:rt_once:return { @r = count(); } END { printa("r %@d\n", @r); }' \
	>"$TMP/c.out" 2>"$TMP/c.err"
rc=$?
r=$(val r "$TMP/c.out")
if [ $rc = 0 ] && [ "${r:-x}" = $N ] && grep -q '^dtrace: pid 1 has exited$' "$TMP/c.err" &&
   grep -q "kernel text identical to the image" "$TMP/c.err" && ! grep -q warning "$TMP/c.err"; then
	pass live-pid-target-exits
else
	fail live-pid-target-exits "exit $rc, returns ${r:-none} (want $N): $(head -c 300 "$TMP/c.err")"
fi
