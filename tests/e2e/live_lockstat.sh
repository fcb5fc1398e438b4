#!/usr/bin/env bash
# lockstat on GNU Mach's complex locks (issue 28 item 8):
#  - -lv gives lock-acquire, lock-release, lock-block their sites and
#    types; naming spin-acquire on a kernel without simple-lock functions
#    says so plainly;
#  - on the UP kernel, the lock of machload's own vm_map (taken by every
#    vm_allocate and every fault of pages=P): lock-acquire counts exactly
#    the fbt entries of lock_write + lock_read with that lock, at least P,
#    and lock-release exactly lock_done's;
#  - with contend=C, machload sleeps C times for that lock (a thread of
#    its own holds it, wiring a page whose pager answers 20 ms late):
#    lock-sleep and lock-block fire exactly C times for it, each having
#    slept at least 5 ms, and the toolkit's lockstat shows those C blocks
#    and names the kernel map's lock by its symbol;
#  - the toolkit's longest hold of that lock is an fbt program's;
#  - args[0] is a struct lock * whose members read: at every lock-release
#    it is held (want_write, want_upgrade or a read_count);
#  - on sid's SMP kernel the same counts on one CPU, and with --cpus 2
#    once sessions allow two CPUs (until then a SKIP saying why);
#  - on sid's SMP kernel, spin-acquire and spin-spin on every inlined
#    simple_lock fbt can reach, the lock held at spin-acquire, and with
#    hammer=H on 2 CPUs the toolkit's spins on machload's task lock equal
#    a D count of spin-spin on it.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-lockstat

SID=$BUILD/kernels/sid-smp/gnumach-dbg
"$MACHTRACE" -lv -n 'lockstat:::lock-acquire,lockstat:::lock-release,lockstat:::lock-block' \
	>"$TMP/lv" 2>&1
if grep -q 'lock_write lock-acquire$' "$TMP/lv" && grep -q 'lock_read lock-acquire$' "$TMP/lv" &&
   grep -q 'lock_done lock-release$' "$TMP/lv" && grep -q 'lock_write lock-block$' "$TMP/lv" &&
   grep -q 'args\[0\]: struct lock \*' "$TMP/lv" && grep -q 'args\[1\]: uint64_t' "$TMP/lv"; then
	pass live-lockstat-list
else
	fail live-lockstat-list "$(grep -E 'lockstat|args' "$TMP/lv" | head -n 12 | tr '\n' ' ')"
fi
"$MACHTRACE" -l -n 'lockstat:::spin-acquire' >"$TMP/spin.out" 2>"$TMP/spin.err"
grep -q "spin-acquire cannot be placed on this kernel: _simple_lock: no such function" "$TMP/spin.err" &&
	pass live-lockstat-spin-absent-says-so ||
	fail live-lockstat-spin-absent-says-so "$(head -c 300 "$TMP/spin.err")"

P=48
C=4
map='arg0 == (uint64_t)&curthread->task->map->lock'
prog='
lockstat:::lock-acquire /execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock/ { @a = count(); }
fbt::lock_write:entry, fbt::lock_read:entry
/execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock/ { @f = count(); }
lockstat:::lock-release /execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock/
{ @r = count(); @held = sum(args[0]->want_write || args[0]->want_upgrade || args[0]->read_count > 0); }
fbt::lock_done:entry /execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock/ { @d = count(); }
lockstat:::lock-sleep /execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock/ { @s = count(); }
lockstat:::lock-block /execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock/
{ @b = count(); @min = min(args[1]); }
END {
	printa("a %@d\n", @a); printa("f %@d\n", @f); printa("r %@d\n", @r); printa("d %@d\n", @d);
	printa("s %@d\n", @s); printa("b %@d\n", @b); printa("min %@d\n", @min);
	printa("held %@d\n", @held);
}'

# counts NAME WORDS machtrace-options...: the checks above on one run
counts() {
	local name=$1 words=$2 rc a f r d
	shift 2
	live_run "$name" "$words" "$prog" -q "$@"
	rc=$?
	a=$(val a "$TMP/$name.out"); f=$(val f "$TMP/$name.out")
	r=$(val r "$TMP/$name.out"); d=$(val d "$TMP/$name.out")
	echo "# $name: lock-acquire $a fbt $f, lock-release $r lock_done $d"
	workload_ok "live-lockstat-$name-workload" "$TMP/$name.con"
	if [ $rc = 0 ] && [ "${a:-0}" -ge $P ] && [ "$a" = "${f:-x}" ]; then
		pass "live-lockstat-$name-acquire-is-fbt"
	else
		fail "live-lockstat-$name-acquire-is-fbt" "exit $rc, lock-acquire ${a:-none} fbt ${f:-none} (want >= $P): $(head -c 300 "$TMP/$name.err")"
	fi
	[ "${r:-0}" -gt 0 ] && [ "$r" = "${d:-x}" ] && pass "live-lockstat-$name-release-is-fbt" ||
		fail "live-lockstat-$name-release-is-fbt" "lock-release ${r:-none} lock_done ${d:-none}"
	held=$(val held "$TMP/$name.out")
	[ "${r:-0}" -gt 0 ] && [ "${held:-x}" = "$r" ] && pass "live-lockstat-$name-args0-is-struct-lock" ||
		fail "live-lockstat-$name-args0-is-struct-lock" "of ${r:-none} releases ${held:-none} found args[0] held (want_write, want_upgrade or read_count)"
	s=$(val s "$TMP/$name.out"); b=$(val b "$TMP/$name.out"); min=$(val min "$TMP/$name.out")
	echo "# $name: lock-sleep $s lock-block $b, shortest ${min:-none} ns"
	grep -q "^machload: contend n=$C ok=$C " "$TMP/$name.con" && [ "${s:-x}" = $C ] &&
	[ "${b:-x}" = $C ] && [ "${min:-0}" -ge 5000000 ] && pass "live-lockstat-$name-block-is-contend" ||
		fail "live-lockstat-$name-block-is-contend" "lock-sleep ${s:-none} lock-block ${b:-none} (want $C), shortest ${min:-none} ns: $(grep 'machload: contend' "$TMP/$name.con")"
}
counts up "pages=$P contend=$C"

# The toolkit's lockstat: its BLOCKS add up to contend's C, all on one lock.
export PATH="$PWD/$BUILD/bin:$PATH"
MACHTRACE_CONSOLE_LOG=$TMP/tool.con timeout 240 toolkit/lockstat --timeout 200 \
	--workload "pages=8 contend=$C" >"$TMP/tool.out" 2>"$TMP/tool.err"
rc=$?
sed -n 1,4p "$TMP/tool.out" | sed 's/^/# /'
blocks=$(awk 'NR > 1 && NF == 7 { n += $4 } END { print n + 0 }' "$TMP/tool.out")
locks=$(awk 'NR > 1 && NF == 7 && $4 > 0 { print $1 }' "$TMP/tool.out" | sort -u | wc -l)
slept=$(awk 'NR > 1 && NF == 7 { n += $5 } END { print n + 0 }' "$TMP/tool.out")
if [ $rc = 0 ] && grep -q "^machload: contend n=$C ok=$C " "$TMP/tool.con" && [ "$blocks" = $C ] &&
   [ "$locks" = 1 ] && [ "$slept" -ge $((C * 5000)) ] && head -n 1 "$TMP/tool.out" | grep -q MAXHOLD; then
	pass live-lockstat-toolkit-contend
else
	fail live-lockstat-toolkit-contend "exit $rc, blocks $blocks on $locks locks (want $C on 1), slept $slept us: $(head -c 300 "$TMP/tool.err")"
fi

# The toolkit's hold times against an independent program in the same
# session: machload's own map lock from fbt (outermost lock_write or
# lock_read to the lock_done that ends it, per thread, minus the time
# thread_sleep took inside them).  The longest hold (contend's wiring
# thread's, about 20 ms) agrees within 1% + 5 us: the two read timestamp
# at different probes of the same places.
cat >"$TMP/hold.d" <<'END_D'
self int n, in;
self uint64_t t0, s0, slept;
fbt::lock_write:entry, fbt::lock_read:entry
/execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock/
{
	self->in = 1;
	self->t0 = self->n == 0 ? timestamp : self->t0;
	self->n++;
}
fbt::lock_write:return, fbt::lock_read:return /self->in/ { self->in = 0; }
fbt::thread_sleep:entry /self->in/ { self->s0 = timestamp; }
fbt::thread_sleep:return /self->s0/ { self->slept += timestamp - self->s0; self->s0 = 0; }
fbt::lock_done:entry
/execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock && self->n/
{
	self->n--;
}
fbt::lock_done:entry
/execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock && self->t0 &&
 self->n == 0/
{
	@imax = max((timestamp - self->t0 - self->slept) / 1000);
	@imap[arg0] = count();
	self->t0 = 0;
	self->slept = 0;
}
END { printa("imax %@d\n", @imax); printa("imap %x %@d\n", @imap); }
END_D
MACHTRACE_CONSOLE_LOG=$TMP/hold.con timeout 240 "$MACHTRACE" -q -s toolkit/lockstat -s "$TMP/hold.d" \
	--timeout 200 --workload "pages=8 contend=$C" >"$TMP/hold.out" 2>"$TMP/hold.err"
rc=$?
imap=$(sed -n 's/^imap \([0-9a-f]*\) .*/\1/p' "$TMP/hold.out")
imax=$(val imax "$TMP/hold.out")
tmax=$(awk -v l="0x$imap" 'NF == 7 && $1 == l && $7 > m { m = $7 } END { print m + 0 }' "$TMP/hold.out")
echo "# hold: the tool's longest hold of machload's map lock $tmax us, fbt's ${imax:-none} us"
d=$((tmax - ${imax:-0}))
d=${d#-}
if [ $rc = 0 ] && [ "$(echo "$imap" | wc -w)" = 1 ] && [ "${imax:-0}" -ge 5000 ] &&
   [ $((d * 100)) -le $((imax + 500)) ]; then
	pass live-lockstat-toolkit-hold-is-fbt
else
	fail live-lockstat-toolkit-hold-is-fbt "exit $rc, lock ${imap:-none}: tool $tmax us, fbt ${imax:-none} us: $(head -c 300 "$TMP/hold.err")"
fi

# The kernel map's lock (kernel_map_store's, taken when a kmem cache
# grows) shows by its symbol, not its address.
kms=$(nm "$KERNEL" | sed -n 's/^\([0-9a-f]*\) [BbDd] kernel_map_store$/\1/p' | sed 's/^0*//')
if [ -z "$kms" ]; then
	fail live-lockstat-toolkit-names-global "no kernel_map_store in $KERNEL"
elif awk 'NR > 1 && NF == 7 { print $1 }' "$TMP/tool.out" | grep -q "^0x$kms$"; then
	fail live-lockstat-toolkit-names-global "kernel_map_store's lock shows as 0x$kms"
elif awk 'NR > 1 && NF == 7 { print $1 }' "$TMP/tool.out" | grep -q '^gnumach`kernel_map_store$'; then
	pass live-lockstat-toolkit-names-global
else
	echo "SKIP live-lockstat-toolkit-names-global: the kernel map's lock was not taken in this run"
fi

# Inlined simple locks on sid's SMP kernel (prov_spin.c): every function
# objdump shows with an xchg to memory and a pause has spin-acquire and
# spin-spin probes, or fbt cannot trace it either; at every spin-acquire
# the lock args[0] is held (lock_data 1).
if [ ! -f "$SID" ]; then
	echo "SKIP live-lockstat-spin-sites: missing $SID (scripts/setup.sh)"
else
	objdump -d --no-show-raw-insn "$SID" | awk '/^[0-9a-f]+ <.*>:$/ { f = substr($2, 2, length($2) - 3) }
		/\txchg .*\(/ { x[f] = 1 } /\tpause/ { p[f] = 1 }
		END { for (f in x) if (p[f]) print f }' | sort >"$TMP/spinfuncs"
	for n in spin-acquire spin-spin; do
		"$MACHTRACE" --kernel "$SID" -l -n "lockstat:::$n" 2>/dev/null |
			awk 'NR > 1 { print $4 }' | sort >"$TMP/$n.funcs"
	done
	"$MACHTRACE" --kernel "$SID" -l -n 'fbt:::entry' 2>/dev/null | awk 'NR > 1 { print $4 }' |
		sort >"$TMP/fbt.funcs"
	miss=$(comm -23 "$TMP/spinfuncs" "$TMP/spin-acquire.funcs" | comm -12 - "$TMP/fbt.funcs")
	nf=$(wc -l <"$TMP/spinfuncs"); na=$(wc -l <"$TMP/spin-acquire.funcs")
	echo "# spin: $nf functions with an xchg and a pause, $na with spin-acquire"
	if [ "$na" -gt 0 ] && [ -z "$miss" ] && [ -z "$(comm -13 "$TMP/spin-acquire.funcs" "$TMP/spin-spin.funcs")" ] &&
	   [ -s "$TMP/spin-spin.funcs" ]; then
		pass live-lockstat-spin-sites
	else
		fail live-lockstat-spin-sites "$na of $nf; traceable but without spin-acquire: $(echo $miss | head -c 200)"
	fi
	live_run spinheld "pages=$P" 'lockstat:::spin-acquire { @n = count(); @held = sum(args[0]->lock_data == 1); }
		END { printa("n %@d\n", @n); printa("held %@d\n", @held); }' -q --kernel "$SID"
	n=$(val n "$TMP/spinheld.out"); held=$(val held "$TMP/spinheld.out")
	echo "# spin: $n spin-acquire firings, args[0] held at $held"
	# 2 or 3 of the first firings at stack_handoff's two sites find their
	# lock free or at 0x804: not understood yet (docs/providers.md)
	if [ "${n:-0}" -gt 0 ] && [ $((n - ${held:-0})) -le $((n / 1000)) ]; then
		pass live-lockstat-spin-acquire-holds
	else
		fail live-lockstat-spin-acquire-holds "spin-acquire ${n:-none}, held at ${held:-none}: $(head -c 300 "$TMP/spinheld.err")"
	fi
fi
# hammer=H on 2 CPUs:
# machload's two workers, one on each CPU, make H task_info RPCs each at
# once, each taking machload's task lock (a simple lock).  The toolkit's
# lockstat shows that lock with spins, and its SPINS for the lock add up
# to a D count of spin-spin on it in the same session: equal in every run
# here but one of about ten (3122 against 3121), a one-firing difference
# between two clauses of one probe on two CPUs not yet understood
# (docs/kernels.md), so one apart is allowed and printed.
H=5000
cat >"$TMP/spin.d" <<'END_D'
lockstat:::spin-acquire /execname == "machload" && probefunc == "task_info"/ { @tl[arg0] = count(); }
lockstat:::spin-spin { @sp[arg0] = count(); }
END { printa("tlock %x %@d\n", @tl); printa("spins %x %@d\n", @sp); }
END_D
if [ ! -f "$SID" ]; then
	echo "SKIP live-lockstat-smp-spin: missing $SID (scripts/setup.sh)"
else
	MACHTRACE_CONSOLE_LOG=$TMP/ham.con timeout 240 "$MACHTRACE" -q \
		-s toolkit/lockstat -s "$TMP/spin.d" --kernel "$SID" --cpus 2 --timeout 200 \
		--workload "hammer=$H" >"$TMP/ham.out" 2>"$TMP/ham.err"
	rc=$?
	tl=$(awk '$1 == "tlock" { print $2 }' "$TMP/ham.out")
	dn=$(awk -v l="$tl" '$1 == "spins" && $2 == l { print $3 }' "$TMP/ham.out")
	tn=$(awk -v l="0x$tl" '/^SPINLOCK/ { t = 1; next } t && NF == 5 && $1 == l { n += $4 }
		END { print n + 0 }' "$TMP/ham.out")
	echo "# hammer: task lock ${tl:-none}: the tool's spins $tn, D's ${dn:-none}"
	grep 'machload: hammer' "$TMP/ham.con" | sed 's/^/# /'
	if [ $rc = 0 ] && grep -q "^machload: hammer n=$((2 * H)) ok=$((2 * H)) " "$TMP/ham.con" &&
	   grep -q "^machload: hammer worker=1 pset=other processor=1 ok=$H" "$TMP/ham.con" &&
	   [ "$(echo "$tl" | wc -w)" = 1 ] && [ "$tn" -gt 0 ] && [ -n "$dn" ] &&
	   [ $((tn - dn)) -ge -1 ] && [ $((tn - dn)) -le 1 ]; then
		pass live-lockstat-smp-spin
	else
		fail live-lockstat-smp-spin "exit $rc, task lock ${tl:-none}: tool $tn spins, D ${dn:-none}: $(grep -v warning "$TMP/ham.err" | head -c 300)"
	fi
fi

if [ ! -f "$SID" ]; then
	echo "SKIP live-lockstat-smp: missing $SID (scripts/setup.sh)"
else
	counts smp1 "pages=$P contend=$C" --kernel "$SID"
fi
if [ ! -f "$SID" ]; then
	:
elif "$MACHTRACE" --kernel "$SID" --cpus 2 -n 'BEGIN { exit(0); }' >/dev/null 2>"$TMP/probe.err"; then
	counts smp "pages=$P contend=$C cpus=20" --kernel "$SID" --cpus 2
else
	echo "SKIP live-lockstat-smp: a session on 2 CPUs: $(grep -v "matched" "$TMP/probe.err" | head -n 1)"
fi
