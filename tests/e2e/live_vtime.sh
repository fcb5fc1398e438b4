#!/usr/bin/env bash
# vtimestamp on the kernel: a thread's time on the CPU less its time in
# probe context.  machload's pingpong=P and rpcs=R threads block in
# mach_msg receives: from each sched:::off-cpu of machload to its next
# on-cpu the wall clock runs while the virtual one stands (less than a
# tenth of it, the switch path itself) in at least 9 blocks of 10 (the
# guest's TSC follows the host's clock without -icount: a host that
# preempts QEMU inside the switch path's few microseconds lends that
# block its pause); every one of machload's probes
# reads a virtual time no smaller than the thread's last; one firing reads
# one value; the clock advances while machload runs.  With the compiled
# probes (mach_msg_trap:entry's code reads it through the runtime's
# helper, its own time bracketed as probe context) and with the
# interpreter alone (MACHTRACE_NOJIT=1).
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-vtime

P=20 R=5
W="rt=0 pingpong=$P pages=0 threads=0 tasks=0 rpcs=$R"
prog='self uint64_t last, same;
sched:::off-cpu /execname == "machload"/ { self->ts = timestamp; self->vts = vtimestamp; }
sched:::on-cpu /self->ts/ {
	@n = count(); @w = sum(timestamp - self->ts); @v = sum(vtimestamp - self->vts);
	@stood = sum((vtimestamp - self->vts) * 10 < timestamp - self->ts);
	self->ts = 0;
}
fbt::mach_msg_trap:entry, sched:::off-cpu, sched:::on-cpu /execname == "machload"/ {
	@back = sum(self->last > vtimestamp); @chk = count();
	@ran = sum(self->last ? vtimestamp - self->last : 0);
	self->last = vtimestamp;
}
fbt::mach_msg_trap:entry /execname == "machload"/ { @changed = sum(vtimestamp != self->last); }
END {
	printa("blocked %@d wall %@d virt %@d stood %@d\n", @n, @w, @v, @stood);
	printa("backwards %@d of %@d ran %@d changed %@d\n", @back, @chk, @ran, @changed);
}'

check() {	# name
	local o=$TMP/$1.out n w v st back chk ran ch
	read -r n w v st <<<"$(sed -n 's/^blocked \([0-9]*\) wall \([0-9]*\) virt \([0-9]*\) stood \([0-9]*\)$/\1 \2 \3 \4/p' "$o")"
	read -r back chk ran ch <<<"$(sed -n 's/^backwards \([0-9]*\) of \([0-9]*\) ran \([0-9]*\) changed \([0-9]*\)$/\1 \2 \3 \4/p' "$o")"
	if [ "${n:-0}" -ge $((2 * P)) ] && [ "${w:-0}" -gt 0 ] && [ $((10 * ${st:-0})) -ge $((9 * n)) ]; then
		pass "live-vtime-$1-stands-while-blocked"
	else
		fail "live-vtime-$1-stands-while-blocked" "machload blocked ${n:-none} times (want >= $((2 * P))): wall ${w:-none} ns, virtual ${v:-none} ns, ${st:-none} blocks with virtual < a tenth of wall (want 9 in 10): $(head -c 300 "$TMP/$1.err")"
	fi
	if [ "${back:-1}" = 0 ] && [ "${chk:-0}" -ge $((2 * P)) ] && [ "${ran:-0}" -gt 0 ] && [ "${ch:-1}" = 0 ]; then
		pass "live-vtime-$1-monotonic"
	else
		fail "live-vtime-$1-monotonic" "backwards ${back:-none} of ${chk:-none} reads, advanced ${ran:-none} ns, changed within a firing ${ch:-none}"
	fi
}

# the compiled engine even when make check's interpreter pass
# (tests/nojit.sh) runs this script: it runs both engines itself
(unset MACHTRACE_NOJIT; live_run jit "$W" "$prog" -q -S)
rc=$?
if [ $rc = 0 ] && grep -aq "^Probe fbt:gnumach:mach_msg_trap:entry at .*: compiled" "$TMP/jit.err"; then
	pass live-vtime-compiled
else
	fail live-vtime-compiled "exit $rc: $(grep -a "mach_msg_trap:entry" "$TMP/jit.err" | head -n 2)"
fi
check jit
MACHTRACE_NOJIT=1 live_run nojit "$W" "$prog" -q
check nojit
workload_ok live-vtime-workload "$TMP/nojit.con"
