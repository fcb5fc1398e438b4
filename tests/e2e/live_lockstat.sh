#!/usr/bin/env bash
# lockstat on GNU Mach's complex locks (issue 28 item 8):
#  - -lv gives lock-acquire, lock-release, lock-block their sites and
#    types; naming spin-acquire on a kernel without simple-lock functions
#    says so plainly;
#  - on the UP kernel, the lock of machload's own vm_map (taken by every
#    vm_allocate and every fault of pages=P): lock-acquire counts exactly
#    the fbt entries of lock_write + lock_read with that lock, at least P,
#    and lock-release exactly lock_done's;
#  - on sid's SMP kernel the same counts on one CPU, and with --cpus 2
#    once sessions allow two CPUs (until then a SKIP saying why).
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
prog='
lockstat:::lock-acquire /execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock/ { @a = count(); }
fbt::lock_write:entry, fbt::lock_read:entry
/execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock/ { @f = count(); }
lockstat:::lock-release /execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock/ { @r = count(); }
fbt::lock_done:entry /execname == "machload" && arg0 == (uint64_t)&curthread->task->map->lock/ { @d = count(); }
END { printa("a %@d\n", @a); printa("f %@d\n", @f); printa("r %@d\n", @r); printa("d %@d\n", @d); }'

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
}
counts up "pages=$P"

if [ ! -f "$SID" ]; then
	echo "SKIP live-lockstat-smp: missing $SID (scripts/setup.sh)"
else
	counts smp1 "pages=$P" --kernel "$SID"
fi
if [ ! -f "$SID" ]; then
	:
elif "$MACHTRACE" --kernel "$SID" --cpus 2 -n 'BEGIN { exit(0); }' >/dev/null 2>"$TMP/probe.err"; then
	counts smp "pages=$P cpus=20" --kernel "$SID" --cpus 2
else
	echo "SKIP live-lockstat-smp: a session on 2 CPUs: $(grep -v "matched" "$TMP/probe.err" | head -n 1)"
fi
