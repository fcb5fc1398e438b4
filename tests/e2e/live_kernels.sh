#!/usr/bin/env bash
# The core provider checks on a kernel other than the tested one: forky's
# GNU Mach (GCC 16), whose DWARF differs from trixie's (it has no location
# for ipc_mqueue_receive's kmsg where the message is counted).  Provider
# sites come from the code's structure (prov_*.c), so on this kernel too:
#  - every ipc probe of the tables is either listed or warned about
#    ("cannot be placed ... : why"), never dropped silently, and
#    ipc_mqueue_receive's receive is placed (-lv: kmsg from its fallback,
#    the value stored through kmsgp, as this DWARF lost it);
#  - the stock kernel without its variable locations (.debug_loclists
#    stripped): the probes that need them are warned about by name and
#    reason (placed without a site, or not at all), those whose sites
#    have fallbacks still listed;
#  - ipc send and receive by msg_name against machload's rpcs=R (R
#    machload_echo and R replies each way) and pingpong (its message 4242
#    received as often as sent), task_create-reply received K times;
#  - proc:::create/exit K times for tasks=K, vm:::fault at least P times for
#    pages=P, sched:::on-cpu/off-cpu in machload.
# Each against machload's own report on the console.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-kernels
FORKY=$BUILD/kernels/forky/gnumach-dbg
if [ ! -f "$FORKY" ]; then
	echo "SKIP live-kernels: missing $FORKY (scripts/fetch-kernel.sh forky)"
	exit 0
fi

"$MACHTRACE" --kernel "$FORKY" -l -P ipc >"$TMP/l.out" 2>"$TMP/l.err"
for p in "ipc_mqueue_send send" "mach_msg_trap send" "mach_msg_trap send-error" \
	 "mach_msg_send send-error" "ipc_mqueue_receive receive" "mach_msg_trap receive" \
	 "exception_raise send" "exception_raise receive"; do
	if grep -qE "ipc +gnumach +${p% *} ${p#* }\$" "$TMP/l.out" ||
	   grep -qE "warning: ipc:${p% *}:${p#* } (cannot be placed|misses one of its sites).*: .+" "$TMP/l.err"; then
		pass "live-kernels-listed-or-warned-${p// /-}"
	else
		fail "live-kernels-listed-or-warned-${p// /-}" "neither listed nor warned: $(cat "$TMP/l.out" "$TMP/l.err")"
	fi
done
if grep -qE "ipc +gnumach +ipc_mqueue_receive receive\$" "$TMP/l.out"; then
	pass live-kernels-mqueue-receive-placed
else
	fail live-kernels-mqueue-receive-placed "$(cat "$TMP/l.err")"
fi

"$MACHTRACE" --kernel "$FORKY" -lv -n ipc::ipc_mqueue_receive:receive >"$TMP/lv.out" 2>&1
if grep -qE "ipc_mqueue_receive\+0x[0-9a-f]+: increment of task.messages_received; arg0=kmsg in %r[a-z0-9]+ \(stored through a pointer next\)" "$TMP/lv.out"; then
	pass live-kernels-lv-sites
else
	fail live-kernels-lv-sites "$(grep -A3 'Probe Sites' "$TMP/lv.out")"
fi

if objcopy --remove-section=.debug_loclists "$KERNEL" "$TMP/noloc" 2>/dev/null; then
	"$MACHTRACE" --kernel "$TMP/noloc" -l -P ipc >"$TMP/nl.out" 2>"$TMP/nl.err"
	if grep -qE "^machtrace: warning: ipc:mach_msg_trap:receive cannot be placed on this kernel: [a-z]+ has no register at mach_msg_trap\+0x[0-9a-f]+ \(DWARF\)$" "$TMP/nl.err" &&
	   grep -qE "^machtrace: warning: ipc:mach_msg_trap:send misses one of its sites \(undercounts\) on this kernel: .+" "$TMP/nl.err" &&
	   ! grep -qE "ipc +gnumach +mach_msg_trap receive\$" "$TMP/nl.out"; then
		pass live-kernels-noloc-warns
	else
		fail live-kernels-noloc-warns "$(cat "$TMP/nl.err") $(grep mach_msg_trap "$TMP/nl.out")"
	fi
	if grep -qE "ipc +gnumach +ipc_mqueue_receive receive\$" "$TMP/nl.out" &&
	   grep -qE "ipc +gnumach +exception_raise receive\$" "$TMP/nl.out" &&
	   grep -qE "ipc +gnumach +mach_msg_trap send\$" "$TMP/nl.out"; then
		pass live-kernels-noloc-fallbacks
	else
		fail live-kernels-noloc-fallbacks "$(cat "$TMP/nl.out" "$TMP/nl.err")"
	fi
else
	echo "SKIP live-kernels-noloc: objcopy cannot strip $KERNEL"
fi

R=5 P=12 K=2 N=16
prog='ipc:::send /execname == "machload"/ { @s[args[0]->msg_name] = count(); }
ipc:::receive /execname == "machload"/ { @r[args[0]->msg_name] = count(); }
proc:::create /execname == "machload"/ { @c = count(); }
proc:::exit /execname == "machload"/ { @e = count(); }
vm:::fault /execname == "machload"/ { @f = count(); }
sched:::on-cpu /execname == "machload"/ { @on = count(); }
sched:::off-cpu /execname == "machload"/ { @off = count(); }
END { printa("send %s %@d\n", @s); printa("receive %s %@d\n", @r); printa("c %@d\n", @c);
	printa("e %@d\n", @e); printa("f %@d\n", @f); printa("on %@d\n", @on);
	printa("off %@d\n", @off); }'
live_run core "rt=0 rpcs=$R pingpong=$P tasks=$K pages=$N threads=0" "$prog" -q --kernel "$FORKY"
workload_ok live-kernels-workload "$TMP/core.con"
phase() {	# phase: machload's ok= count
	sed -n "s/^machload: $1 n=[0-9]* ok=\([0-9]*\) .*/\1/p" "$TMP/core.con"
}
named() {	# what routine: the count
	sed -n "s/^$1 $2 \([0-9][0-9]*\)$/\1/p" "$TMP/core.out" | head -n 1
}
exact() {	# test name, got, want
	if [ -n "$3" ] && [ "${2:-0}" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "${2:-0}, machload says ${3:-nothing}: $(tr '\n' ' ' <"$TMP/core.out" | head -c 400) $(head -c 300 "$TMP/core.err")"
	fi
}
gr=$(phase rpcs) gp=$(phase pingpong) gk=$(phase tasks) gn=$(phase pages)
exact live-kernels-echo-sent "$(named send machload_echo)" "$gr"
exact live-kernels-echo-received "$(named receive machload_echo)" "$gr"
exact live-kernels-echo-reply-sent "$(named send machload_echo-reply)" "$gr"
exact live-kernels-echo-reply-received "$(named receive machload_echo-reply)" "$gr"
ps=$(named send 4242)
if [ "$gp" = "$P" ] && [ "${ps:-0}" -ge "$P" ]; then
	exact live-kernels-pingpong-received-as-sent "$(named receive 4242)" "$ps"
else
	fail live-kernels-pingpong-received-as-sent "pingpong ok=${gp:-?}, 4242 sent ${ps:-0} (want >= $P)"
fi
exact live-kernels-task_create-reply-received "$(named receive task_create-reply)" "$gk"
exact live-kernels-proc-create "$(val c "$TMP/core.out")" "$gk"
exact live-kernels-proc-exit "$(val e "$TMP/core.out")" "$gk"
f=$(val f "$TMP/core.out") on=$(val on "$TMP/core.out") off=$(val off "$TMP/core.out")
if [ "$gn" = "$N" ] && [ "${f:-0}" -ge "$N" ]; then
	pass live-kernels-vm-fault-covers-pages
else
	fail live-kernels-vm-fault-covers-pages "pages ok=${gn:-?}, vm:::fault ${f:-0} (want >= $N)"
fi
if [ "${on:-0}" -gt 0 ] && [ "${off:-0}" -gt 0 ]; then
	pass live-kernels-sched-on-off-cpu
else
	fail live-kernels-sched-on-off-cpu "on-cpu ${on:-0}, off-cpu ${off:-0} in machload"
fi

# The clock fallback (MACHTRACE_NO_LAPIC) on this kernel: profile-997 fires
# once per clock interrupt, and the rate the warning after STOP gives is
# the one the kernel's clock_interrupt ran at (counted by fbt over the
# same session, +/- 15 %), whatever its hz says (forky's ticks faster).
prog='fbt::clock_interrupt:entry { @c = count(); } profile-997 { @p = count(); }
BEGIN { t0 = timestamp; } tick-2s { ms = (timestamp - t0) / 1000000; exit(0); }
END { printa("c %@d\n", @c); printa("p %@d\n", @p); printf("ms %d\n", ms); }'
MACHTRACE_NO_LAPIC=1 live_run clock "rpcs=50 serve=100" "$prog" -q --kernel "$FORKY"
c=$(val c "$TMP/clock.out") p=$(val p "$TMP/clock.out") ms=$(val ms "$TMP/clock.out")
said=$(sed -n "s/^machtrace: warning: the kernel's clock interrupt ran \([0-9]*\) times a second, not hz (100): tick-N\/profile-N fired at most that often$/\1/p" "$TMP/clock.err")
if [ -n "$c" ] && [ -n "$ms" ] && [ "$ms" -gt 0 ]; then
	rate=$(( c * 1000 / ms ))
	if [ "$rate" -ge 115 ] && [ -n "$said" ] && [ "$said" -ge $(( rate * 85 / 100 )) ] &&
	   [ "$said" -le $(( rate * 115 / 100 )) ]; then
		pass live-kernels-clock-rate-said
	elif [ "$rate" -lt 115 ] && [ -z "$said" ]; then
		pass live-kernels-clock-rate-said
	else
		fail live-kernels-clock-rate-said "clock_interrupt ran $rate/s ($c in $ms ms), the warning says ${said:-nothing}: $(cat "$TMP/clock.err")"
	fi
	if [ -n "$p" ] && [ "$p" -ge $(( c * 95 / 100 )) ] && [ "$p" -le $(( c + 2 )) ]; then
		pass live-kernels-clock-fallback-once-per-interrupt
	else
		fail live-kernels-clock-fallback-once-per-interrupt "profile-997 ${p:-none}, clock_interrupt $c"
	fi
else
	fail live-kernels-clock-rate-said "no counts: $(head -c 300 "$TMP/clock.err")"
fi
