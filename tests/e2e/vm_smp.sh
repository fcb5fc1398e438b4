#!/usr/bin/env bash
# A running VM of two CPUs on sid's SMP GNU Mach (issue 28).  vm start
# --cpus 2 without --memory takes the least RAM that kernel boots with on
# two CPUs (512 MiB) and boots; less is an error naming that least, before
# QEMU starts.  20 --vm sessions in a row (the first with 2 s of clock
# ticks on both CPUs through the tick hook before INIT; the blob's CPU
# table written by the host before that hook), each with
# 600 fbt sites in while machload runs on both CPUs, leave the kernel text
# equal to the image after each, and so does a SIGKILLed consumer (the
# deadman); the VM still runs its workload after them.  A missing image is
# a SKIP.
set -u
. "$(dirname "$0")/vm_lib.sh"
need_live vm-smp
need_sid_smp vm-smp
VM_KERNEL=$SID

"$MACHTRACE" boot --cpus 2 --memory 256 --kernel "$SID" >"$TMP/small.out" 2>"$TMP/small.err"
rc=$?
if [ $rc != 0 ] && grep -q -- "--memory 256 with --cpus 2: .* needs at least 512 MiB" "$TMP/small.err"; then
	pass vm-smp-too-little-memory-named
else
	fail vm-smp-too-little-memory-named "exit $rc: $(head -c 300 "$TMP/small.err")"
fi

# a round: a parallel phase on both CPUs and an rt burst, forever
if ! timeout 120 "$MACHTRACE" vm start --name "$VM" --kernel "$SID" --cpus 2 \
     --workload "cpus=20 rt=100 serve=0" >"$TMP/start.out" 2>"$TMP/start.err"; then
	fail vm-smp-start-default-memory "$(tail -n 3 "$TMP/start.err")"
	exit 1
fi
SHM=$(sed -n 's/^shm=//p' "$VMDIR/info")
QEMU_PID=$(cat "$VMDIR/qemu.pid")
if grep -q "^memory=512$" "$VMDIR/info" && grep -q "^cpus=2$" "$VMDIR/info"; then
	pass vm-smp-start-default-memory
else
	fail vm-smp-start-default-memory "$(grep -E '^(memory|cpus)=' "$VMDIR/info" | tr '\n' ' ')"
fi

# 20 --vm sessions in a row, each enabling every ipc_* and vm_* entry
# site (600 sites) while machload runs on both CPUs: the blob patches
# with cross-call syncs; after each the kernel text equals the image
PROG='fbt::ipc_*:entry, fbt::vm_*:entry { @[cpu] = count(); } tick-1s { exit(0); }
END { printa("cpu%d %@d\n", @); }'
bad=""
for i in $(seq 1 20); do
	# the fresh VM's first session: 2 s of both CPUs' clock ticks
	# through the tick hook before INIT (each on its own blob stack)
	early=; [ "$i" = 1 ] && early=2000
	MACHTRACE_TEST_TICKS_BEFORE_INIT=$early MACHTRACE_TEXTCHECK=1 timeout 60 \
		"$MACHTRACE" --vm "$VM" -q -n "$PROG" >"$TMP/s$i.out" 2>"$TMP/s$i.err"
	rc=$?
	c0=$(val cpu0 "$TMP/s$i.out"); c1=$(val cpu1 "$TMP/s$i.out")
	if [ $rc != 0 ] || [ "${c0:-0}" -le 0 ] || [ "${c1:-0}" -le 0 ] ||
	   ! grep -q "kernel text identical to the image" "$TMP/s$i.err" || ! text_stock; then
		bad="session $i: exit $rc, cpu0 ${c0:-none} cpu1 ${c1:-none}: $(head -c 300 "$TMP/s$i.err")"
		break
	fi
done
echo "# last session: cpu0 ${c0:-none} cpu1 ${c1:-none} firings"
if [ -z "$bad" ]; then pass vm-smp-20-sessions-text-stock; else fail vm-smp-20-sessions-text-stock "$bad"; fi

# the blob's CPU table (LK_VEC_CPU_LUT, 0x100 after the blob's start) is
# the kernel's cpu_id_lut, as the host wrote it before the first hook
resv=$(sed -n 's/^resv_pa=//p' "$VMDIR/info")
slot=$(od -An -tx8 -j $(( resv + 0x100 )) -N8 "$SHM" | tr -d ' ')
want=$(nm "$SID" | awk '$3 == "cpu_id_lut" { print $1 }')
if [ -n "$want" ] && [ "$slot" = "$want" ]; then
	pass vm-smp-cpu-table-written
else
	fail vm-smp-cpu-table-written "slot ${slot:-none}, cpu_id_lut ${want:-none}"
fi

# a consumer killed with SIGKILL: the blob's deadman takes every site out
if killed_session_restores 'fbt::ipc_*:entry, fbt::vm_*:entry { @ = count(); }'; then
	pass vm-smp-sigkill-deadman-text-stock
else
	fail vm-smp-sigkill-deadman-text-stock "$killed_why"
fi

# the VM still runs its workload: a session after all that counts
# machload's serve rounds, and no KDB prompt on its console
MACHTRACE_TEXTCHECK=1 timeout 60 "$MACHTRACE" --vm "$VM" -q -n \
	'machload*:::phase-done { @n = count(); } tick-2s { exit(0); } END { printa("n %@d\n", @n); }' \
	>"$TMP/after.out" 2>"$TMP/after.err"
rc=$?
n=$(val n "$TMP/after.out")
if [ $rc = 0 ] && [ "${n:-0}" -gt 0 ] && "$MACHTRACE" vm list 2>/dev/null | grep -qE "^$VM +running " &&
   ! grep -qE "db\{[0-9]*\}>|panic" "$VMDIR/console.log"; then
	pass vm-smp-still-runs
else
	fail vm-smp-still-runs "exit $rc, phases ${n:-none}: $(head -c 300 "$TMP/after.err")"
fi

"$MACHTRACE" vm stop "$VM" >/dev/null 2>&1
nothing_left vm-smp-nothing-left
