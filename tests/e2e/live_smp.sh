#!/usr/bin/env bash
# Tracing sid's SMP GNU Mach (issue 28).  On one CPU: the text check after
# an exit() ends the session compares the text (the SMP image's _start is
# in no segment) and finds it restored.  On two CPUs: no guest panic, the kernel text and every
# CPU's int3 vector restored, fbt's mach_msg_trap count equal to
# mach_trap's, an int3 site firing on both CPUs (each CPU's IDT hooked),
# each CPU's records in its own buffer, records + drops = firings per CPU
# with every fbt probe enabled (compiled, an aggregation keyed by cpu), compiled probes run on both CPUs (each
# CPU its own copy: its cpu, buffer and aggregations; exact counts),
# text patching synced by cross-calls answered by both CPUs, a[tid]
# counts exact with both CPUs firing, the own-cost line's firing count
# exact, the host's clear() and trunc()
# requests served on each CPU by a cross-call with exact counts, -x
# cpu=1 accepted, profile-997 at its
# rate on both CPUs, tick-N on one, and the kernel's own LAPIC timer
# kept.  A missing image is a SKIP.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-smp
need_sid_smp live-smp
# tests/run-all.sh runs this file again under MACHTRACE_NOJIT=1: there
# the checks of compiled code check that nothing was compiled
NOJIT=${MACHTRACE_NOJIT:+1}
compiled_ok() {	# probes compiled, the least wanted with the compiled engine
	if [ -n "$NOJIT" ]; then [ "$1" = 0 ]; else [ "$1" -ge "$2" ]; fi
}
N=200 P=50

MACHTRACE_TEXTCHECK=1 live_run one "rt=2000000" \
	'fbt::mach_msg_trap:entry { n++; } fbt::mach_msg_trap:return /n >= 2000/ { exit(0); }' \
	-q --kernel "$SID"
restored live-smp-1cpu-text-restored "$TMP/one.err"

prog='fbt::mach_msg_trap:entry /execname == "machload"/ { @f = count(); }
mach_trap::mach_msg_trap:entry /execname == "machload"/ { @m = count(); }
fbt::mach_msg_trap:entry { @c[cpu] = count(); }
END { printf("\n"); printa("f %@d\n", @f); printa("m %@d\n", @m); printa("cpu%d %@d\n", @c); }'
MACHTRACE_TEXTCHECK=1 live_run two \
	"rt=$N pingpong=$P pages=16 threads=1 tasks=1" "$prog" -q --kernel "$SID" --cpus 2
rc=$?
no_panic live-smp-2cpu-no-panic "$TMP/two.con"
workload_ok live-smp-2cpu-workload-completes "$TMP/two.con"
restored live-smp-2cpu-text-and-idt-restored "$TMP/two.err"
f=$(val f "$TMP/two.out"); m=$(val m "$TMP/two.out")
echo "# 2 CPUs: fbt=${f:-none} mach_trap=${m:-none} $(grep '^cpu' "$TMP/two.out" | tr '\n' ' ')"
if [ $rc = 0 ] && [ "${f:-0}" -ge $((2 * N + 2 * P)) ] && [ "$f" = "${m:-x}" ]; then
	pass live-smp-2cpu-mach_msg_trap
else
	fail live-smp-2cpu-mach_msg_trap "exit $rc, fbt ${f:-none}, mach_trap ${m:-none} (want equal, >= $((2 * N + 2 * P))): $(head -c 300 "$TMP/two.err")"
fi

# the tracer's own-cost line counts every CPU's firings, none lost to
# two CPUs adding at once (a locked add): every mach_msg_trap entry and END
MACHTRACE_PROBE_COST=1 live_run cost "cpus=2000 rt=0" \
	'fbt::mach_msg_trap:entry { @f = count(); } END { printa("f %@d\n", @f); }' \
	-q --kernel "$SID" --cpus 2
rc=$?
f=$(val f "$TMP/cost.out")
fires=$(sed -n "s/^machtrace: the tracer's own cost: .* ms in probe context, \([0-9]*\) probe firings: .*/\1/p" \
	"$TMP/cost.err")
echo "# own-cost firings ${fires:-none}, fbt count ${f:-none} (+1 END)"
if [ $rc = 0 ] && [ "${f:-0}" -ge 4000 ] && [ "${fires:-0}" = "$(( ${f:-0} + 1 ))" ]; then
	pass live-smp-2cpu-own-cost-firings-exact
else
	fail live-smp-2cpu-own-cost-firings-exact "exit $rc, firings ${fires:-none}, count ${f:-none}: $(head -c 300 "$TMP/cost.err")"
fi

# compiled probes on both CPUs: machload's cpus=N workers make N round
# trips each, one on each CPU; the fbt and mach_trap probes of
# mach_msg_trap are compiled, each CPU runs its own copy of the code (the
# interpreter only until the first firing armed it: MACHTRACE_ENGINE_STATS),
# fbt's count equals mach_trap's, the per-CPU counts add up to it and
# CPU 1 has its worker's 2N entries; every record is in the buffer of the
# CPU its trace(cpu) names, and records + drops = firings on each CPU
C=300
prog='fbt::mach_msg_trap:entry /execname == "machload"/ { @f = count(); @c[cpu] = count(); trace(cpu); }
mach_trap::mach_msg_trap:entry /execname == "machload"/ { @m = count(); }
END { printf("\n"); printa("f %@d\n", @f); printa("m %@d\n", @m); printa("cpu%d %@d\n", @c); }'
MACHTRACE_ENGINE_STATS=1 MACHTRACE_TEXTCHECK=1 live_run jit \
	"cpus=$C rt=$N" "$prog" --kernel "$SID" --cpus 2 -S
rc=$?
no_panic live-smp-2cpu-jit-no-panic "$TMP/jit.con"
workload_ok live-smp-2cpu-jit-workload-completes "$TMP/jit.con"
restored live-smp-2cpu-jit-text-and-idt-restored "$TMP/jit.err"
f=$(val f "$TMP/jit.out"); m=$(val m "$TMP/jit.out")
c0=$(val cpu0 "$TMP/jit.out"); c1=$(val cpu1 "$TMP/jit.out")
i0=$(sed -n 's/^machtrace: live: CPU 0: \([0-9]*\) firings interpreted$/\1/p' "$TMP/jit.err")
i1=$(sed -n 's/^machtrace: live: CPU 1: \([0-9]*\) firings interpreted$/\1/p' "$TMP/jit.err")
compiled=$(grep -c "^Probe .*mach_msg_trap:entry at .*: compiled" "$TMP/jit.err")
echo "# compiled on 2 CPUs: fbt=${f:-none} mach_trap=${m:-none} cpu0 ${c0:-none} cpu1 ${c1:-none}," \
	"interpreted firings ${i0:-none} and ${i1:-none}, $compiled probes compiled"
if [ -n "$NOJIT" ] && [ $rc = 0 ] && compiled_ok "$compiled" 2 &&
   [ "${i0:-0}" -ge "${c0:-1}" ] && [ "${i1:-0}" -ge "${c1:-1}" ]; then
	pass live-smp-2cpu-jit-compiled-both-cpus
elif [ $rc = 0 ] && compiled_ok "$compiled" 2 && [ -n "$i0" ] && [ -n "$i1" ] &&
   [ "${c0:-0}" -gt "$i0" ] && [ "${c1:-0}" -gt "$i1" ]; then
	pass live-smp-2cpu-jit-compiled-both-cpus
else
	fail live-smp-2cpu-jit-compiled-both-cpus "exit $rc, $compiled compiled, cpu0 ${c0:-none} (${i0:-?} interpreted), cpu1 ${c1:-none} (${i1:-?} interpreted)"
fi
if [ $rc = 0 ] && [ "${f:-0}" -ge $((4 * C + 2 * N)) ] && [ "$f" = "${m:-x}" ] &&
   [ $((${c0:-0} + ${c1:-0})) = "$f" ] && [ "${c1:-0}" -ge $((2 * C)) ]; then
	pass live-smp-2cpu-jit-counts-exact
else
	fail live-smp-2cpu-jit-counts-exact "exit $rc, fbt ${f:-none}, mach_trap ${m:-none}, cpu0 ${c0:-none} + cpu1 ${c1:-none} (want fbt = mach_trap = the sum >= $((4 * C + 2 * N)), cpu1 >= $((2 * C)))"
fi
for c in 0 1; do
	x=$(awk -v c=$c 'NF == 4 && $3 == "mach_msg_trap:entry" && $1 == c && $4 == c' "$TMP/jit.out" | wc -l)
	bad=$(awk 'NF == 4 && $3 == "mach_msg_trap:entry" && $1 != $4' "$TMP/jit.out" | wc -l)
	d=$(sed -n "s/^dtrace: \([0-9][0-9]*\) drops\{0,1\} on CPU $c\$/\1/p" "$TMP/jit.err" |
	    awk '{ s += $1 } END { print s + 0 }')
	n=$(val cpu$c "$TMP/jit.out")
	echo "# compiled, CPU $c: records $x (in another CPU's buffer: $bad), drops $d, firings ${n:-none}"
	if [ $rc = 0 ] && [ "${n:-0}" -gt 0 ] && [ "$bad" = 0 ] && [ $((x + d)) = "$n" ]; then
		pass live-smp-2cpu-jit-records-exact-cpu$c
	else
		fail live-smp-2cpu-jit-records-exact-cpu$c "exit $rc, records $x, in another CPU's buffer $bad, drops $d, firings ${n:-none}"
	fi
done

# int3 on both CPUs (a kinst site in the clock interrupt, which each CPU
# takes): each CPU's IDT is hooked, and every one restored after exit()
prog='kinst::clock_interrupt:12 { @[cpu] = count(); } tick-1s { exit(0); }
END { printa("cpu%d %@d\n", @); }'
MACHTRACE_TEXTCHECK=1 live_run int3 "rt=20000000" "$prog" -q \
	--kernel "$SID" --cpus 2
rc=$?
c0=$(val cpu0 "$TMP/int3.out"); c1=$(val cpu1 "$TMP/int3.out")
no_panic live-smp-2cpu-int3-no-panic "$TMP/int3.con"
if [ $rc = 0 ] && [ "${c0:-0}" -gt 0 ] && [ "${c1:-0}" -gt 0 ]; then
	pass live-smp-2cpu-int3-both-cpus
else
	fail live-smp-2cpu-int3-both-cpus "exit $rc, cpu0 ${c0:-none} cpu1 ${c1:-none}: $(head -c 300 "$TMP/int3.err")"
fi
restored live-smp-2cpu-int3-text-and-idt-restored "$TMP/int3.err"

# each CPU's records in its own buffer: thread_quantum_update runs on
# both CPUs at every clock tick, and its records are counted by the CPU
# column (a compiled probe wrote CPU 0's buffer from both)
live_run bufs "rt=20000000" \
	'fbt::thread_quantum_update:entry { trace(1); } tick-1s { exit(0); }' \
	--kernel "$SID" --cpus 2 -S
rc=$?
r0=$(awk 'NF == 4 && $1 == 0 && $3 == "thread_quantum_update:entry"' "$TMP/bufs.out" | wc -l)
r1=$(awk 'NF == 4 && $1 == 1 && $3 == "thread_quantum_update:entry"' "$TMP/bufs.out" | wc -l)
echo "# records by CPU: $r0 on 0, $r1 on 1"
if [ $rc = 0 ] && [ "$r0" -ge 20 ] && [ "$r1" -ge 20 ]; then
	pass live-smp-2cpu-records-per-cpu
else
	fail live-smp-2cpu-records-per-cpu "exit $rc, $r0 on CPU 0, $r1 on CPU 1 (want >= 20 each): $(grep '^Probe' "$TMP/bufs.err" | head -n 2)"
fi

# every firing accounted for, per CPU: the records printed plus the drops
# reported on that CPU equal its firings (a count() in the same clause,
# keyed by one integer: compiled, its helper runs on the blob's stack,
# not on the kernel stack vm_page_grab leaves nearly full)
MACHTRACE_JIT_STATS=$TMP/drops.stats MACHTRACE_TEXTCHECK=1 \
	live_run drops "rt=1000" \
	'fbt:::entry,fbt:::return { printf("x %d %s:%s\n", cpu, probefunc, probename); @n[cpu] = count(); }
END { printa("n%d %@d\n", @n); }' -q -x bufsize=4k --kernel "$SID" --cpus 2
rc=$?
ncomp=$(grep -c '^compiled ' "$TMP/drops.stats" 2>/dev/null)
echo "# all fbt, @n[cpu]: ${ncomp:-0} probes compiled"
if compiled_ok "${ncomp:-0}" 1001; then
	pass live-smp-2cpu-allfbt-intkey-compiled
else
	fail live-smp-2cpu-allfbt-intkey-compiled "${ncomp:-0} probes compiled: $(grep -v '^compiled ' "$TMP/drops.stats" 2>/dev/null | head -n 2)"
fi
no_panic live-smp-2cpu-allfbt-no-panic "$TMP/drops.con"
restored live-smp-2cpu-allfbt-text-and-idt-restored "$TMP/drops.err"
for c in 0 1; do
	accounted live-smp-2cpu-drops-exact-cpu$c "$TMP/drops.out" "$TMP/drops.err" $c $rc
done

# the same with compiled code on both CPUs (a copy per CPU, dispatched by
# the blob): the records printed plus the drops reported equal the
# firings, and the text comes back
MACHTRACE_TEXTCHECK=1 live_run jitall "cpus=200 rt=200" \
	'fbt:::entry,fbt:::return { printf("x %d %s:%s\n", cpu, probefunc, probename); @n = count(); }
END { printa("n %@d\n", @n); }' -q -x bufsize=4k --kernel "$SID" --cpus 2 -S
rc=$?
no_panic live-smp-2cpu-jit-allfbt-no-panic "$TMP/jitall.con"
restored live-smp-2cpu-jit-allfbt-text-and-idt-restored "$TMP/jitall.err"
pokes_serial live-smp-2cpu-jit-allfbt-pokes-one-at-a-time "$TMP/jitall.err"
x=$(grep -c "^x " "$TMP/jitall.out")
d=$(sed -n 's/^dtrace: \([0-9][0-9]*\) drops\{0,1\} on CPU [0-9]*$/\1/p' "$TMP/jitall.err" |
    awk '{ s += $1 } END { print s + 0 }')
n=$(val n "$TMP/jitall.out")
compiled=$(grep -c "^Probe .*: compiled, [0-9]* bytes" "$TMP/jitall.err")
echo "# compiled, every fbt probe: $compiled probes compiled, printed $x, drops $d, firings ${n:-none}"
if [ $rc = 0 ] && compiled_ok "$compiled" 1001 && [ "${n:-0}" -gt 0 ] && [ $((x + d)) = "$n" ]; then
	pass live-smp-2cpu-jit-allfbt-drops-exact
else
	fail live-smp-2cpu-jit-allfbt-drops-exact "exit $rc, $compiled compiled, printed $x, drops $d, firings ${n:-none}"
fi

# the host's requests on both CPUs' aggregations (issue 28): every 10 ms
# printa() and clear() of a count (the consumer's baseline) and trunc()
# of a max() (the runtime drops its entries, each CPU's on that CPU by a
# cross-call) while both CPUs' workers update them.  The counts printed
# across clears add up to the firings, the per-CPU counts too, every
# max() row's value is its key (a firing writing an entry that a
# truncation moved under it puts its value in another's; a row at max()'s
# initial value is an entry the consumer read between its creation and
# its first update, a known race of the snapshot, docs/kernels.md),
# printed records plus drops equal the firings on each CPU, and no CPU
# began a text poke during another's (each request disarms the compiled
# site and both CPUs' next firings arm it again: mixed jmp bytes sent a
# CPU into the middle of the trampoline area, issue 28)
R=20000
prog='fbt::mach_msg_trap:entry /execname == "machload"/ { this->k = (timestamp >> 4) & 63;
	printf("x %d\n", cpu); @n[cpu] = count(); @c = count(); @t = count(); @m[this->k] = max(this->k); }
tick-10ms { printa("c %@d\n", @c); clear(@c); printa("m %d %@d\n", @m); trunc(@m); }
END { printa("c %@d\n", @c); printa("t %@d\n", @t); printa("n%d %@d\n", @n); printa("m %d %@d\n", @m); }'
MACHTRACE_TEXTCHECK=1 live_run req "cpus=$R rt=$N" "$prog" -q \
	--kernel "$SID" --cpus 2
rc=$?
no_panic live-smp-2cpu-requests-no-panic "$TMP/req.con"
pokes_serial live-smp-2cpu-requests-pokes-one-at-a-time "$TMP/req.err"
workload_ok live-smp-2cpu-requests-workload-completes "$TMP/req.con"
t=$(val t "$TMP/req.out"); n0=$(val n0 "$TMP/req.out"); n1=$(val n1 "$TMP/req.out")
c=$(awk '$1 == "c" && NF == 2 { s += $2 } END { print s + 0 }' "$TMP/req.out")
mrows=$(grep -c '^m ' "$TMP/req.out")
mbad=$(awk '$1 == "m" && (NF != 3 || ($2 != $3 && $3 != "-9223372036854775808") || $2 > 63)' \
	"$TMP/req.out" | wc -l)
echo "# requests on 2 CPUs: firings ${t:-none} (cpu0 ${n0:-none}, cpu1 ${n1:-none})," \
	"counts printed across clears $c, max rows $mrows ($mbad not their key)"
if [ $rc = 0 ] && [ "${n1:-0}" -gt 0 ] && [ "${t:-0}" -ge $((4 * R)) ] && [ "$c" = "$t" ] &&
   [ $((${n0:-0} + ${n1:-0})) = "$t" ]; then
	pass live-smp-2cpu-requests-counts-exact
else
	fail live-smp-2cpu-requests-counts-exact "exit $rc, firings ${t:-none}, printed across clears $c, cpu0 ${n0:-none} + cpu1 ${n1:-none}"
fi
if [ $rc = 0 ] && [ "$mrows" -gt 0 ] && [ "$mbad" = 0 ]; then
	pass live-smp-2cpu-requests-trunc-max-intact
else
	fail live-smp-2cpu-requests-trunc-max-intact "exit $rc, $mbad of $mrows max() rows not their key: $(awk '$1 == "m" && $2 != $3' "$TMP/req.out" | head -n 3 | tr '\n' ' ')"
fi
for c in 0 1; do
	x=$(grep -c "^x $c\$" "$TMP/req.out")
	d=$(sed -n "s/^dtrace: \([0-9][0-9]*\) drops\{0,1\} on CPU $c\$/\1/p" "$TMP/req.err" |
	    awk '{ s += $1 } END { print s + 0 }')
	n=$(val n$c "$TMP/req.out")
	echo "# requests, CPU $c: printed $x, drops $d, firings ${n:-none}"
	if [ $rc = 0 ] && [ "${n:-0}" -gt 0 ] && [ $((x + d)) = "$n" ]; then
		pass live-smp-2cpu-requests-records-exact-cpu$c
	else
		fail live-smp-2cpu-requests-records-exact-cpu$c "exit $rc, printed $x, drops $d, firings ${n:-none}"
	fi
done

# text patching with both CPUs running machload (cpus=2: a worker on
# each): every fbt entry site written at GO and taken out at the end,
# int3 first, each step followed by a cross-call that every other CPU
# answers (xcall.c); the text comes back equal to the image.  With
# profile-997 on both CPUs' timers, ended by the workload's reboot (whose
# hook holds the CPU with interrupts off): every timer and vector back
MACHTRACE_LIVE_STATS=1 MACHTRACE_TEXTCHECK=1 live_run xcall \
	"cpus=2 rt=200" 'fbt:::entry { @[cpu] = count(); } profile-997 { @p[cpu] = count(); }
END { printa("cpu%d %@d\n", @); }' -q --kernel "$SID" --cpus 2
rc=$?
no_panic live-smp-2cpu-xcall-no-panic "$TMP/xcall.con"
workload_ok live-smp-2cpu-xcall-workload-completes "$TMP/xcall.con"
restored live-smp-2cpu-xcall-text-and-idt-restored "$TMP/xcall.err"
xc=$(sed -n 's/.* \([0-9][0-9]*\) cross-calls (vector 0x[0-9a-f]*, \([0-9]*\) CPUs, \([0-9]*\) not answered).*/\1 \2 \3/p' "$TMP/xcall.err")
echo "# cross-calls, CPUs answering, not answered: ${xc:-none}"
set -- $xc
if [ $rc = 0 ] && [ "${1:-0}" -gt 0 ] && [ "${2:-0}" = 2 ] && [ "${3:-x}" = 0 ]; then
	pass live-smp-2cpu-xcall-syncs
else
	fail live-smp-2cpu-xcall-syncs "exit $rc, '${xc:-no cross-call statistics}' (want some, 2 CPUs, 0 not answered)"
fi

# dynamic variables with both CPUs firing (runtime/dynvar.c): a[tid]++ on
# every machload mach_msg_trap, cpus=5000 a worker on each CPU (a thread
# on one CPU at a time); each thread's last a[tid] (a max() of it) summed equals the traps counted;
# b[tid], set at entry and deleted at return, is found at every return
# but one per thread (a call begun before tracing); no dynamic variable
# drop (a lost or doubled element shows as a different sum, a chain made
# into a loop as a hung guest)
prog='int a[uint64_t];
mach_trap::mach_msg_trap:entry /execname == "machload"/ { a[tid]++; @m = count(); @last[tid] = max(a[tid]); @c[cpu] = count(); b[tid] = timestamp; }
mach_trap::mach_msg_trap:return /execname == "machload"/ { @r = count(); }
mach_trap::mach_msg_trap:return /b[tid]/ { @p = count(); b[tid] = 0; }
END { printa("m %@d\n", @m); printa("r %@d\n", @r); printa("p %@d\n", @p); printa("t %d %@d\n", @last); printa("cpu%d %@d\n", @c); }'
live_run dynvar "cpus=5000 rt=200 pingpong=50 threads=2" "$prog" -q \
	--kernel "$SID" --cpus 2
rc=$?
m=$(val m "$TMP/dynvar.out")
s=$(awk '$1 == "t" { s += $3; n++ } END { print s + 0, n + 0 }' "$TMP/dynvar.out")
p=$(val p "$TMP/dynvar.out"); r=$(val r "$TMP/dynvar.out")
dd=$(grep -c "dynamic variable drop" "$TMP/dynvar.err")
c0=$(val cpu0 "$TMP/dynvar.out"); c1=$(val cpu1 "$TMP/dynvar.out")
echo "# 2 CPUs: mach_msg_trap ${m:-none} (cpu0 ${c0:-none}, cpu1 ${c1:-none}), a[tid] summed and threads: $s, b[tid] found at ${p:-none} of ${r:-none} returns, drop lines $dd"
no_panic live-smp-2cpu-dynvar-no-panic "$TMP/dynvar.con"
if [ $rc = 0 ] && [ "${m:-0}" -ge 4000 ] && [ "${s%% *}" = "$m" ] && [ "$dd" = 0 ] &&
   [ "${c0:-0}" -gt 0 ] && [ "${c1:-0}" -gt 0 ] && [ "${p:-0}" -le "${r:-0}" ] &&
   [ "${p:-0}" -ge $((${r:-0} - ${s##* })) ]; then
	pass live-smp-2cpu-dynvar-counts-exact
else
	fail live-smp-2cpu-dynvar-counts-exact "exit $rc, traps ${m:-none}, a[tid] summed ${s%% *}, b[tid] at ${p:-none} of ${r:-none} returns, drop lines $dd, cpu0 ${c0:-none} cpu1 ${c1:-none}: $(head -c 300 "$TMP/dynvar.err")"
fi

# -x cpu names a CPU of the guest: 1 exists on two CPUs
live_run xcpu "rt=20" 'BEGIN { exit(0); }' -q -x cpu=1 \
	--kernel "$SID" --cpus 2
rc=$?
if [ $rc = 0 ] && ! grep -q "no such CPU" "$TMP/xcpu.err"; then
	pass live-smp-2cpu-buffer-per-cpu
else
	fail live-smp-2cpu-buffer-per-cpu "exit $rc: $(head -c 300 "$TMP/xcpu.err")"
fi

# profile-997 at its rate on every CPU, tick-N on one (DTrace's rule),
# from each CPU's local APIC timer, and the kernel's own LAPIC timer on
# CPU 1 (its clock) still ticking beside the blob's
prog='profile-997 { @p[cpu] = count(); } tick-100ms { @t[cpu] = count(); }
fbt::clock_interrupt:entry { @c[cpu] = count(); } tick-2s { exit(0); }
END { printa("p%d %@d\n", @p); printa("t%d %@d\n", @t); printa("c%d %@d\n", @c); }'
MACHTRACE_TEXTCHECK=1 live_run prof "rt=20000000" "$prog" -q \
	--kernel "$SID" --cpus 2
rc=$?
c0=$(val p0 "$TMP/prof.out"); c1=$(val p1 "$TMP/prof.out")
t0=$(val t0 "$TMP/prof.out"); t1=$(val t1 "$TMP/prof.out"); k1=$(val c1 "$TMP/prof.out")
echo "# profile-997 in 2 s: cpu0 ${c0:-none} cpu1 ${c1:-none}; tick-100ms: cpu0 ${t0:-none}" \
	"cpu1 ${t1:-none}; clock interrupts on cpu1 ${k1:-none}"
no_panic live-smp-2cpu-profile-no-panic "$TMP/prof.con"
restored live-smp-2cpu-profile-text-and-idt-restored "$TMP/prof.err"
if [ $rc = 0 ] && [ "${c0:-0}" -ge 1900 ] && [ "${c1:-0}" -ge 1900 ] && [ "$c0" -le 2100 ] &&
   [ "$c1" -le 2100 ]; then
	pass live-smp-2cpu-profile-per-cpu
else
	fail live-smp-2cpu-profile-per-cpu "exit $rc, cpu0 ${c0:-none} cpu1 ${c1:-none} (want ~1994 each)"
fi
if [ $rc = 0 ] && [ "${t0:-0}" -ge 19 ] && [ "${t0:-0}" -le 21 ] && [ -z "$t1" ]; then
	pass live-smp-2cpu-tick-one-cpu
else
	fail live-smp-2cpu-tick-one-cpu "exit $rc, tick-100ms cpu0 ${t0:-none} cpu1 ${t1:-none} (want ~20 on CPU 0 only)"
fi
if [ $rc = 0 ] && [ "${k1:-0}" -ge 100 ]; then
	pass live-smp-2cpu-kernel-lapic-timer-kept
else
	fail live-smp-2cpu-kernel-lapic-timer-kept "exit $rc, clock interrupts on CPU 1: ${k1:-none} in 2 s"
fi

