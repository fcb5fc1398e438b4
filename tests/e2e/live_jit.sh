#!/usr/bin/env bash
# engines: once (it runs each engine itself)
# Compiled probes (jit/): the same programs with the compiled code and
# with the interpreter (MACHTRACE_NOJIT=1) give the same output, every
# probe of them is compiled, and the counts are machload's own: N round
# trips are at least 2N mach_msg_trap entries of machload, each entry of
# the latency pair has its return, the execname predicate and the
# execname key count alike.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-jit

N=500
E='fbt::mach_msg_trap:entry'
R='fbt::mach_msg_trap:return'
prog="int g;
$E { @c = count(); @f[probefunc] = count(); }
$E /execname == \"machload\"/ { g++; if (arg1 == 1) { @one = count(); } else if (arg1 == 2)
	{ @two = count(); } else { @other = sum(arg1); printf(\"other %d\\n\", arg1); } }
$E /arg0 == 0xdeadbeef/ { @never = count(); }
$E /execname == \"machload\"/ { @m = count(); @k[execname] = count(); @s = sum(arg2);
	@se[execname] = sum(arg2); @ka[arg1] = count(); @kb[(char)arg2] = sum(arg1); }
$E /arg1 == 1 && arg2 == 48/ { trace(arg2); printf(\" send %d %d\\n\", arg1, arg2); }
$E { self->ts = timestamp; }
$E /execname == \"machload\"/ { @p[pid] = count(); @t = max((long)curthread->task); }
$E /execname == \"machload\" && arg1 == 1/ { @bad = count(); trace(*(int *)arg0); }
$R /self->ts/ { @lat = count(); @q = quantize(arg1); @mx = max(arg1); @mn = min(arg1); self->ts = 0; }
END { printa(\"c %@d\\n\", @c); printa(\"f %s %@d\\n\", @f); printa(\"never %@d\\n\", @never);
	printa(\"m %@d\\n\", @m); printa(\"k %s %@d\\n\", @k); printa(\"s %@d\\n\", @s); printa(\"se %s %@d\\n\", @se);
	printa(\"p %d %@d\\n\", @p); printa(\"bad %@d\\n\", @bad);
	printa(\"one %@d two %@d other %@d\\n\", @one, @two, @other); printf(\"g %d\\n\", g);
	printa(\"ka %d %@d\\n\", @ka); printa(\"kb %d %@d\\n\", @kb);
	printf(\"-- returns --\\n\"); printa(\"lat %@d\\n\", @lat); printa(\"mx %@d mn %@d\\n\", @mx, @mn);
	printa(@q); }"
words="rt=$N pingpong=0 pages=0 threads=0 tasks=0"
live_run jit "$words" "$prog" -q -S
rc=$?
MACHTRACE_NOJIT=1 live_run nojit "$words" "$prog" -q
rc2=$?
workload_ok live-jit-workload-completes "$TMP/jit.con"

compiled=$(grep -c "^Probe .*: compiled, [0-9]* bytes" "$TMP/jit.err")
if [ "$compiled" = 2 ] && ! grep -q "interpreted" "$TMP/jit.err" &&
   grep -q "pushfq" "$TMP/jit.err"; then
	pass live-jit-probes-compiled
else
	fail live-jit-probes-compiled "$compiled of 2 probes compiled: $(grep -E 'interpreted' "$TMP/jit.err" | head -n 3)"
fi
# the same output, but the returns' counts (the session may stop between
# the last traced entry and its return, at a different place in each run)
# and what sums or keys message sizes (s, se, kb): machload's console lines
# carry cycle counts, so a message's size changes with their digits
entries() { sed -e '/^-- returns --$/,$d' -e '/^s /d' -e '/^se /d' -e '/^kb /d' "$1"; }
sizes_ok() {	# out: the sum of sizes is machload's, and near the other run's
	local s se o
	s=$(val s "$1"); se=$(sed -n 's/^se machload \([0-9]*\)$/\1/p' "$1"); o=$(val s "$2")
	[ -n "$s" ] && [ "$s" = "$se" ] && [ -n "$o" ] &&
		[ $(( (s > o ? s - o : o - s) * 100 )) -le "$s" ]
}
if [ $rc = 0 ] && [ $rc2 = 0 ] && [ -s "$TMP/jit.out" ] && grep -q "^-- returns --$" "$TMP/jit.out" &&
   [ "$(entries "$TMP/jit.out")" = "$(entries "$TMP/nojit.out")" ] &&
   sizes_ok "$TMP/jit.out" "$TMP/nojit.out" && sizes_ok "$TMP/nojit.out" "$TMP/jit.out"; then
	pass live-jit-same-output-as-interpreter
else
	fail live-jit-same-output-as-interpreter "exit $rc/$rc2: $(diff <(entries "$TMP/jit.out") <(entries "$TMP/nojit.out") | head -n 6)"
fi
m=$(val m "$TMP/jit.out"); k=$(sed -n 's/^k machload \([0-9]*\)$/\1/p' "$TMP/jit.out")
c=$(val c "$TMP/jit.out"); f=$(sed -n 's/^f mach_msg_trap \([0-9]*\)$/\1/p' "$TMP/jit.out")
sends=$(grep -c "48 send 1 48$" "$TMP/jit.out")
if [ "${m:-0}" -ge $((2 * N)) ] && [ "$m" = "$k" ] && [ "${c:-0}" -ge "$m" ] && [ "$c" = "$f" ] &&
   [ "$(val never "$TMP/jit.out")" = "" ] && [ "$sends" -ge $N ]; then
	pass live-jit-counts-are-machloads
else
	fail live-jit-counts-are-machloads "machload $m, key $k, all $c, probefunc $f, sends $sends (want >= $((2 * N)), >= $N)"
fi
# loads: a user address is not a kernel safe load: each firing reports
# its fault, as the interpreter does
e1=$(grep -c "error on enabled probe.*invalid address" "$TMP/jit.err")
e2=$(grep -c "error on enabled probe.*invalid address" "$TMP/nojit.err")
bad=$(val bad "$TMP/jit.out")
if [ "${bad:-0}" -ge $N ] && [ "$e1" = "$bad" ] && [ "$e2" = "$bad" ]; then
	pass live-jit-load-faults
else
	fail live-jit-load-faults "firings $bad, faults reported $e1 compiled, $e2 interpreted"
fi
lat=$(val lat "$TMP/jit.out")
if [ "${lat:-0}" -ge $((2 * N)) ] && [ "$lat" -le "${c:-0}" ]; then
	pass live-jit-latency-pair
else
	fail live-jit-latency-pair "returns after an entry $lat, entries $c"
fi

# thread-locals found inline (the thread memo's tid, the row's hash
# window) over threads and tasks that come and go: new threads take the
# runtime's path first, rows are made and emptied; no thread ever sees
# another's value, and the interpreter counts about as many entries (the
# number of calls varies by a few from run to run with the threads'
# interleaving: 1409 and 1419 seen from one engine).  (A blocked
# mach_msg_trap returns through a continuation, without its return
# probe: so r < e, and r and n depend on which calls blocked.)
prog="$E /execname == \"machload\"/ { self->me = tid; self->n++; @e = count(); }
$R /self->me/ { @r = count(); @other = sum(self->me != tid); }
$R /self->n > 3/ { @n = sum(self->n); self->n = 0; self->me = 0; }
END { printa(\"e %@d\\n\", @e); printa(\"r %@d\\n\", @r); printa(\"other %@d\\n\", @other);
	printa(\"n %@d\\n\", @n); }"
words="rt=200 pingpong=200 threads=20 forks=5 pages=0 tasks=0"
live_run jittls "$words" "$prog" -q
rc=$?
MACHTRACE_NOJIT=1 live_run nojittls "$words" "$prog" -q
rc2=$?
e=$(val e "$TMP/jittls.out"); r=$(val r "$TMP/jittls.out"); n=$(val n "$TMP/jittls.out")
r2=$(val r "$TMP/nojittls.out")
e2=$(val e "$TMP/nojittls.out")
if [ $rc = 0 ] && [ $rc2 = 0 ] && [ -n "$e" ] && [ -n "$e2" ] &&
   [ $(( (e > e2 ? e - e2 : e2 - e) * 50 )) -le "$e" ] &&
   [ "$(val other "$TMP/jittls.out")" = 0 ] && [ "$(val other "$TMP/nojittls.out")" = 0 ] &&
   [ "${e:-0}" -ge 1000 ] && [ "${r:-0}" -ge 400 ] && [ "${r2:-0}" -ge 400 ] &&
   [ "${n:-0}" -gt 0 ] && grep -q "^machload: threads n=20 ok=20" "$TMP/jittls.con"; then
	pass live-jit-thread-locals
else
	fail live-jit-thread-locals "exit $rc/$rc2, e $e/$e2 r $r n $n: $(diff "$TMP/jittls.out" "$TMP/nojittls.out" | head -n 4)"
fi

# divisions as the interpreter does them: signed and unsigned, by -1
# (never idiv's trap), remainders' signs, and by zero (each firing's
# divide-by-zero reported alike, the clause abandoned)
prog="long x;
$E /execname == \"machload\"/ { @a = sum(arg1 / 2); @b = sum((long)arg2 % -3); @c = sum(arg1 % 5);
	@d = sum((long)(arg2 - 100) / 7); @e = sum((long)(-(long)arg2) % 7); @f = sum((long)arg2 / -1);
	@g = sum(((long)arg2 - 100) % -1); x = (long)arg2 / ((long)arg1 - 1); @h = sum(x); @n = count(); }
END { printa(\"%@d %@d %@d %@d %@d %@d %@d %@d\\n\", @a, @b, @c, @d, @e, @f, @g, @h); printa(\"n %@d\\n\", @n); }"
words="rt=100 pingpong=0 pages=0 threads=0 tasks=0"
live_run jitdiv "$words" "$prog" -q -S
rc=$?
MACHTRACE_NOJIT=1 live_run nojitdiv "$words" "$prog" -q
rc2=$?
z1=$(grep -c "divide-by-zero" "$TMP/jitdiv.err"); z2=$(grep -c "divide-by-zero" "$TMP/nojitdiv.err")
n=$(val n "$TMP/nojitdiv.out")
if [ $rc = 0 ] && [ $rc2 = 0 ] && cmp -s "$TMP/jitdiv.out" "$TMP/nojitdiv.out" &&
   grep -q "^Probe .*entry.*: compiled" "$TMP/jitdiv.err" && grep -q "idiv" "$TMP/jitdiv.err" &&
   [ "$z1" = "$z2" ] && [ "$z1" -gt 0 ] && [ "$z1" -lt "${n:-0}" ]; then
	pass live-jit-division
else
	fail live-jit-division "exit $rc/$rc2, divide-by-zero $z1/$z2 of $n: $(diff "$TMP/jitdiv.out" "$TMP/nojitdiv.out" | head -n 4)"
fi

# both_engines NAME WORDS PROGRAM: compiled as NAME (which probes were:
# $TMP/NAME.stats), interpreted as noNAME; rc and rc2 their statuses
both_engines() {
	rm -f "$TMP/$1.stats"
	MACHTRACE_JIT_STATS=$TMP/$1.stats live_run "$1" "$2" "$3" -q
	rc=$?
	MACHTRACE_NOJIT=1 live_run "no$1" "$2" "$3" -q
	rc2=$?
}

# provider probes at a function's entry or return read their arguments
# through the provider's mapping (sdt.h: off-cpu's args are stack_handoff's
# arg1 or switch_context's arg2, dequeue's choose_thread's return value,
# ipc:::send's arg1 the current thread, arg2 0) and args[N] of a constant
# N: compiled, with the interpreter's values
prog="sched:::off-cpu { @o[arg0] = count(); @oz = sum(arg2); @oe = sum(arg0 != arg1); }
sched:::dequeue { @d[arg1] = count(); @dz = sum(arg0 != 0); }
ipc:gnumach:ipc_mqueue_send:send { @s = count(); @sc = sum(arg1 == (uint64_t)curthread);
	@sz = sum(arg2); @sk[((struct ipc_kmsg *)arg0)->ikm_header.msgh_id] = count(); }
sched:::change-pri { @p[args[2]] = count(); }
$E { @a = sum((uint64_t)args[0] == arg0); @n = count(); }
END { printa(\"o %x %@d\\n\", @o); printa(\"oz %@d\\n\", @oz); printa(\"oe %@d\\n\", @oe);
	printa(\"d %x %@d\\n\", @d); printa(\"dz %@d\\n\", @dz); printa(\"s %@d\\n\", @s);
	printa(\"sc %@d\\n\", @sc); printa(\"sz %@d\\n\", @sz); printa(\"sk %d %@d\\n\", @sk);
	printa(\"p %d %@d\\n\", @p); printa(\"a %@d\\n\", @a); printa(\"n %@d\\n\", @n); }"
words="rt=100 pingpong=0 pages=0 threads=0 tasks=0"
both_engines jitmap "$words" "$prog"
ncomp=$(grep -c "^compiled " "$TMP/jitmap.stats" 2>/dev/null)
s=$(val s "$TMP/jitmap.out"); n=$(val n "$TMP/jitmap.out")
if [ $rc = 0 ] && [ $rc2 = 0 ] && [ "${ncomp:-0}" -ge 6 ] && ! grep -v "^compiled " "$TMP/jitmap.stats" &&
   grep -q "^compiled sched:gnumach:choose_thread:dequeue" "$TMP/jitmap.stats" &&
   cmp -s "$TMP/jitmap.out" "$TMP/nojitmap.out" && [ "${s:-0}" -gt 0 ] &&
   [ "$(val sc "$TMP/jitmap.out")" = "$s" ] && [ "$(val sz "$TMP/jitmap.out")" = 0 ] &&
   [ "$(val oz "$TMP/jitmap.out")" = 0 ] && [ "$(val oe "$TMP/jitmap.out")" = 0 ] &&
   [ "${n:-0}" -ge $((2 * 100)) ] && [ "$(val a "$TMP/jitmap.out")" = "$n" ]; then
	pass live-jit-provider-arguments
else
	fail live-jit-provider-arguments "exit $rc/$rc2, $ncomp compiled: $(grep -v '^compiled ' "$TMP/jitmap.stats" | head -n 2) $(diff "$TMP/jitmap.out" "$TMP/nojitmap.out" | head -n 4)"
fi

# ipc:::send's sites inside mach_msg_trap read the message and the
# threads from the registers DWARF names there (LK_SF_REGARGS): compiled,
# with the interpreter's values, and every machload_echo request (4800)
# and reply (4900) counted once
R=20
prog="ipc:::send { @s[((struct ipc_kmsg *)arg0)->ikm_header.msgh_id] = count();
	@c = sum(arg2 == (uint64_t)curthread); @n = count(); }
END { printa(\"sk %d %@d\\n\", @s); printa(\"c %@d\\n\", @c); printa(\"n %@d\\n\", @n); }"
words="rpcs=$R taskinfo=5 threads=3 tasks=2"
both_engines jitreg "$words" "$prog"
ncomp=$(grep -c "^compiled ipc:gnumach:mach_msg_trap:send" "$TMP/jitreg.stats" 2>/dev/null)
if [ $rc = 0 ] && [ $rc2 = 0 ] && [ "${ncomp:-0}" -ge 3 ] && ! grep -v "^compiled " "$TMP/jitreg.stats" &&
   cmp -s "$TMP/jitreg.out" "$TMP/nojitreg.out" &&
   grep -q "^sk 4800 $R$" "$TMP/jitreg.out" && grep -q "^sk 4900 $R$" "$TMP/jitreg.out"; then
	pass live-jit-provider-registers
else
	fail live-jit-provider-registers "exit $rc/$rc2, $ncomp mach_msg_trap sites compiled: $(grep -v '^compiled ' "$TMP/jitreg.stats" | head -n 2) $(diff "$TMP/jitreg.out" "$TMP/nojitreg.out" | head -n 4) $(grep -E '^sk 4[89]00' "$TMP/jitreg.out")"
fi

# vminfo's sites are a counter's increments: their raw arguments are the
# increment and the counter's address (LK_SF_COUNTER), constants in the
# compiled code; every page machload touches is a zero fill
prog="vminfo:::zfod,vminfo:::cow_fault { @z[probename] = sum(arg0); @n[probename] = count();
	@a[arg1 != 0] = count(); }
END { printa(\"z %s %@d\\n\", @z); printa(\"n %s %@d\\n\", @n); printa(\"a %d %@d\\n\", @a); }"
words="rt=10 pingpong=0 pages=64 threads=0 tasks=0 forks=2"
both_engines jitcnt "$words" "$prog"
ncomp=$(grep -c "^compiled vminfo:" "$TMP/jitcnt.stats" 2>/dev/null)
z=$(sed -n 's/^z zfod \([0-9]*\)$/\1/p' "$TMP/jitcnt.out")
if [ $rc = 0 ] && [ $rc2 = 0 ] && [ "${ncomp:-0}" -ge 2 ] && ! grep -v "^compiled " "$TMP/jitcnt.stats" &&
   cmp -s "$TMP/jitcnt.out" "$TMP/nojitcnt.out" && [ "${z:-0}" -ge 64 ] &&
   ! grep -q "^a 0 " "$TMP/jitcnt.out"; then
	pass live-jit-provider-counters
else
	fail live-jit-provider-counters "exit $rc/$rc2, $ncomp compiled, zfod $z: $(grep -v '^compiled ' "$TMP/jitcnt.stats" | head -n 2) $(diff "$TMP/jitcnt.out" "$TMP/nojitcnt.out" | head -n 4)"
fi

# MACHTRACE_JIT_STATS names every probe the interpreter runs: at an int3
# (kinst) and where a hook of the blob shares the site (ipc_task_enable's
# entry), not only those the JIT could not translate
prog="fbt::ipc_task_enable:entry { @n = sum(arg0 != 0); } kinst::vm_fault:39 { @k = count(); }"
rm -f "$TMP/jitwhy.stats"
MACHTRACE_JIT_STATS=$TMP/jitwhy.stats live_run jitwhy "rt=20 pingpong=0 pages=4 threads=0 tasks=1" "$prog" -q
if [ $? = 0 ] && grep -q "^interpreted kinst:gnumach:vm_fault:39: an int3 site$" "$TMP/jitwhy.stats" &&
   grep -q "^interpreted fbt:gnumach:ipc_task_enable:entry: another probe or a hook" "$TMP/jitwhy.stats"; then
	pass live-jit-stats-name-interpreted
else
	fail live-jit-stats-name-interpreted "$(grep -v '^compiled ' "$TMP/jitwhy.stats" | head -n 4)"
fi

# send and receive share mach_msg_trap's handoff sites: one compiled code
# fires both, each with the interpreter's values, every machload_echo
# request (4800) and reply (4900) sent and received once
prog="ipc:::send { @s[((struct ipc_kmsg *)arg0)->ikm_header.msgh_id] = count(); }
ipc:::receive { @r[((struct ipc_kmsg *)arg0)->ikm_header.msgh_id] = count();
	@c = sum(arg2 == (uint64_t)curthread); }
END { printa(\"s %d %@d\\n\", @s); printa(\"r %d %@d\\n\", @r); printa(\"c %@d\\n\", @c); }"
both_engines jitshare "rpcs=$R taskinfo=5 threads=3 tasks=2" "$prog"
if [ $rc = 0 ] && [ $rc2 = 0 ] && ! grep -v "^compiled " "$TMP/jitshare.stats" &&
   cmp -s "$TMP/jitshare.out" "$TMP/nojitshare.out" && grep -q "^s 4800 $R$" "$TMP/jitshare.out" &&
   grep -q "^r 4800 $R$" "$TMP/jitshare.out" && grep -q "^s 4900 $R$" "$TMP/jitshare.out" &&
   grep -q "^r 4900 $R$" "$TMP/jitshare.out"; then
	pass live-jit-shared-sites
else
	fail live-jit-shared-sites "exit $rc/$rc2: $(grep -v '^compiled ' "$TMP/jitshare.stats" | head -n 2) $(diff "$TMP/jitshare.out" "$TMP/nojitshare.out" | head -n 4)"
fi
