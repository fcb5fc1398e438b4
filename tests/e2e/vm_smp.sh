#!/usr/bin/env bash
# A running VM of two CPUs on sid's SMP GNU Mach (issue 28).  vm start
# --cpus 2 without --memory takes the least RAM that kernel boots with on
# two CPUs (512 MiB) and boots; less is an error naming that least, before
# QEMU starts.  A missing image is a SKIP.
set -u
. "$(dirname "$0")/vm_lib.sh"
need_live vm-smp
SID=$BUILD/kernels/sid-smp/gnumach-dbg
if [ ! -f "$SID" ]; then
	echo "SKIP vm-smp: missing $SID (scripts/setup.sh)"
	exit 0
fi
export MACHTRACE_SMP_EXPERIMENTAL=1

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
if grep -q "^memory=512$" "$VMDIR/info" && grep -q "^cpus=2$" "$VMDIR/info"; then
	pass vm-smp-start-default-memory
else
	fail vm-smp-start-default-memory "$(grep -E '^(memory|cpus)=' "$VMDIR/info" | tr '\n' ' ')"
fi
