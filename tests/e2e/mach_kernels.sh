#!/usr/bin/env bash
# Debian's newer kernels (build/kernels/SUITE, fetched by scripts/setup.sh;
# sid-smp: sid's SMP image, traced on one CPU):
# each boots traced in one short session whose counts match machload's own
# report: fbt and mach_trap see the same mach_msg_trap entries, at least 2
# per round trip and per pingpong; proc sees exactly the threads and tasks
# machload made (its threads phase's, plus the server thread each reported
# pingpong or rpcs phase spawns); and the shim's reserved region stays
# untouched through a boot (as mach_reserve.sh checks on the stock kernel);
# and --kernel takes a gzip'd kernel as Debian installs it (boot/*.gz).
# A kernel lacking what the boot needs is refused at once, by sessions and
# vm start, naming its version string and the missing function, -l still
# working; a boot the shim stops gives vm start the shim's reason and
# keeps its console log. sched's off-cpu covers pingpong's blocking receives.  A
# kernel the mirror did not have is a SKIP.  (ipc:::receive is counted by
# live_kernels.sh and kernel_matrix.sh.)
set -u
. "$(dirname "$0")/live_lib.sh"
need_live mach-kernels

N=200 P=20 T=3 K=2
prog='fbt::mach_msg_trap:entry /execname == "machload"/ { @f = count(); }
mach_trap::mach_msg_trap:entry /execname == "machload"/ { @m = count(); }
proc:::lwp-create /execname == "machload"/ { @lc = count(); }
proc:::create /execname == "machload"/ { @c = count(); }
sched:::off-cpu /execname == "machload"/ { @off = count(); }
END { printa("f %@d\n", @f); printa("m %@d\n", @m); printa("lc %@d\n", @lc);
      printa("c %@d\n", @c); printa("off %@d\n", @off); }'
# the stock kernel gzip'd, inflated into a private cache
gzip -c "$KERNEL" >"$TMP/gnumach.gz"
XDG_CACHE_HOME=$TMP/cache live_run gz "rt=$N pingpong=0 pages=0 threads=0 tasks=0" \
	'fbt::mach_msg_trap:entry /execname == "machload"/ { @f = count(); } END { printa("f %@d\n", @f); }' \
	-q --kernel "$TMP/gnumach.gz"
rc=$?
f=$(val f "$TMP/gz.out")
if [ $rc = 0 ] && grep -q "^machload: rt n=$N ok=$N " "$TMP/gz.con" && [ "${f:-0}" -ge $((2 * N)) ] &&
   ls "$TMP/cache/machtrace/gunzipped/gnumach.gz-"* >/dev/null 2>&1; then
	pass mach-kernels-gzip
else
	fail mach-kernels-gzip "exit $rc, mach_msg_trap ${f:-none} (want >= $((2 * N))): $(head -c 300 "$TMP/gz.err")"
fi

ms() { echo $(( $(date +%s%N) / 1000000 )); }
objcopy --redefine-sym biosmem_register_boot_data=biosmem_register_boot_dat_ "$KERNEL" "$TMP/noreg"
ver=$(strings -a "$KERNEL" | grep -m1 '^GNU Mach ')
t0=$(ms)
"$MACHTRACE" --kernel "$TMP/noreg" -n 'fbt::mach_msg_trap:entry { @ = count(); }' >"$TMP/nr.out" 2>"$TMP/nr.err"
rc=$? t=$(( $(ms) - t0 ))
echo "# refusing a kernel without biosmem_register_boot_data took $t ms"
if [ $rc != 0 ] && [ $t -lt 2000 ] && [ -n "$ver" ] &&
   grep -qF "$ver ($TMP/noreg) cannot be traced: it has no biosmem_register_boot_data" "$TMP/nr.err" &&
   grep -q "listing its probes (-l) still works" "$TMP/nr.err" &&
   "$MACHTRACE" --kernel "$TMP/noreg" -l -n 'fbt::mach_msg_trap:entry' 2>/dev/null | grep -q mach_msg_trap; then
	pass mach-kernels-lacking-refused
else
	fail mach-kernels-lacking-refused "exit $rc in $t ms: $(cat "$TMP/nr.err")"
fi
VM=e2e-kern-$$
"$MACHTRACE" vm start --name $VM --kernel "$TMP/noreg" >/dev/null 2>"$TMP/vmnr.err"
rc=$?
if [ $rc != 0 ] && grep -qF "$ver ($TMP/noreg) cannot be traced: it has no biosmem_register_boot_data" "$TMP/vmnr.err" &&
   ! "$MACHTRACE" vm list 2>/dev/null | grep -q "^$VM "; then
	pass mach-kernels-lacking-vm-refused
else
	fail mach-kernels-lacking-vm-refused "exit $rc: $(cat "$TMP/vmnr.err")"
	"$MACHTRACE" vm stop $VM >/dev/null 2>&1
fi
# a 40 MiB module overlaps where the kernel loads: the shim stops the boot
head -c 40M /dev/zero >"$TMP/big"
t0=$(ms)
"$MACHTRACE" vm start --name $VM --module "$TMP/big big \$(task-create) \$(task-resume)" \
	>/dev/null 2>"$TMP/vmbig.err"
rc=$? t=$(( $(ms) - t0 ))
kept=$(sed -n 's/.*(console log: \(.*\))$/\1/p' "$TMP/vmbig.err")
if [ $rc != 0 ] && [ $t -lt 20000 ] && grep -q "the boot shim stopped the boot: shim: error: " "$TMP/vmbig.err" &&
   [ -n "$kept" ] && grep -q "^shim: error: " "$kept"; then
	pass mach-kernels-vm-shim-reason
else
	fail mach-kernels-vm-shim-reason "exit $rc in $t ms: $(cat "$TMP/vmbig.err")"
	"$MACHTRACE" vm stop $VM >/dev/null 2>&1
fi
[ -n "$kept" ] && rm -f "$kept"

for suite in ${MACHTRACE_TEST_KERNELS-forky sid sid-smp}; do
	k=$BUILD/kernels/$suite/gnumach-dbg
	t=mach-kernels-$suite
	if [ ! -f "$k" ]; then
		echo "SKIP $t: no $k (scripts/fetch-kernel.sh --suite $suite)"
		continue
	fi
	v=$(sed -n 1p "$BUILD/kernels/$suite/VERSION")
	live_run $suite "rt=$N pingpong=$P pages=16 threads=$T tasks=$K" "$prog" -q --kernel "$k"
	rc=$?
	workload_ok "$t-workload-completes" "$TMP/$suite.con"
	o=$TMP/$suite.out
	f=$(val f "$o"); m=$(val m "$o"); lc=$(val lc "$o"); c=$(val c "$o"); off=$(val off "$o")
	gt=$(sed -n 's/^machload: threads n=[0-9]* ok=\([0-9]*\) .*/\1/p' "$TMP/$suite.con")
	srv=$(grep -cE '^machload: (pingpong|rpcs) n=' "$TMP/$suite.con")
	[ -n "$gt" ] && gt=$((gt + srv))
	gk=$(sed -n 's/^machload: tasks n=[0-9]* ok=\([0-9]*\) .*/\1/p' "$TMP/$suite.con")
	echo "# $suite $v: fbt=${f:-none} mach_trap=${m:-none} lwp-create=${lc:-none}/${gt:-?}" \
		"create=${c:-none}/${gk:-?} off-cpu=${off:-none}"
	if [ $rc = 0 ] && [ "${f:-0}" -ge $((2 * N + 2 * P)) ] && [ "$f" = "${m:-x}" ]; then
		pass "$t-mach_msg_trap"
	else
		fail "$t-mach_msg_trap" "exit $rc, fbt ${f:-none}, mach_trap ${m:-none} (want equal, >= $((2 * N + 2 * P))): $(head -c 300 "$TMP/$suite.err")"
	fi
	if [ "${gt:-x}" = $((T + 1)) ] && [ "${lc:-0}" = "$gt" ] && [ "${gk:-x}" = $K ] && [ "${c:-0}" = "$gk" ]; then
		pass "$t-proc-exact"
	else
		fail "$t-proc-exact" "lwp-create ${lc:-none} of ${gt:-?} threads, create ${c:-none} of ${gk:-?} tasks"
	fi
	if [ "${off:-0}" -ge $((2 * P)) ]; then
		pass "$t-sched"
	else
		fail "$t-sched" "off-cpu ${off:-none} < $((2 * P))"
	fi
	out=$("$MT" reserve-check --kernel "$k" 0x1400000:0x400000 "pages=64" 2>&1)
	if [ $? = 0 ] && echo "$out" | grep -q ": 0 of 1048576 words changed"; then
		pass "$t-reserve-untouched"
	else
		fail "$t-reserve-untouched" "$out"
	fi
done
