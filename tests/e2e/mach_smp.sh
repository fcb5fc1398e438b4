#!/usr/bin/env bash
# SMP kernels (Debian's amd64-smp-dbg, build/kernels/SUITE-smp, fetched by
# scripts/setup.sh) and --cpus (issue 28's foundation; kernel_matrix.sh's
# sid-smp row checks the providers' counts on one CPU):
#  - a UP kernel with --cpus 2 is refused before QEMU starts, as
#    uniprocessor, by sessions and vm start;
#  - sid's SMP kernel boots on two CPUs (machtrace boot --cpus 2: CPU 1
#    listed, machload done) and a session on two CPUs runs; 9 CPUs, more
#    than it is built for, are refused;
#  - forky's SMP kernel stops in KDB before its console exists (its own
#    bug: the page it takes for the APs' boot code is not boot data, and
#    biosmem_free_usable_range asserts on it): sessions, vm start and
#    machtrace boot fail within seconds naming the assertion read from its
#    message buffer.
# A kernel the mirror did not have is a SKIP.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live mach-smp

SID=$BUILD/kernels/sid-smp/gnumach-dbg
FORKY=$BUILD/kernels/forky-smp/gnumach-dbg
VM=e2e-smp-$$
trap '"$MACHTRACE" vm stop $VM >/dev/null 2>&1; rm -rf "$TMP"' EXIT
prog='fbt::mach_msg_trap:entry { @ = count(); }'
ms() { echo $(( $(date +%s%N) / 1000000 )); }

# refused: test name, message, machtrace arguments...
refused() {
	local name=$1 want=$2 t0 rc t
	shift 2
	t0=$(ms)
	timeout 120 "$MACHTRACE" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	local pid=$!
	wait $pid
	rc=$? t=$(( $(ms) - t0 ))
	echo "# $name: refused in $t ms"
	if [ $rc != 0 ] && [ $rc != 124 ] && [ $t -lt 10000 ] && grep -qF -- "$want" "$TMP/$name.err"; then
		no_leftovers "$name" $pid
	else
		fail "$name" "exit $rc in $t ms: $(head -c 400 "$TMP/$name.err")"
	fi
	if "$MACHTRACE" vm list 2>/dev/null | grep -q "^$VM "; then
		fail "$name-no-vm" "vm $VM is running"
		"$MACHTRACE" vm stop $VM >/dev/null 2>&1
	fi
}

up="is a uniprocessor GNU Mach (built for 1 CPU)"
refused mach-smp-up-cpus2-session "--cpus 2: " --cpus 2 -n "$prog"
grep -qF "$up" "$TMP/mach-smp-up-cpus2-session.err" && pass mach-smp-up-cpus2-says-up ||
	fail mach-smp-up-cpus2-says-up "$(head -c 300 "$TMP/mach-smp-up-cpus2-session.err")"
refused mach-smp-up-cpus2-vm "$up" vm start --name $VM --cpus 2

if [ ! -f "$SID" ]; then
	echo "SKIP mach-smp-sid: missing $SID (scripts/setup.sh)"
else
	timeout 120 "$MACHTRACE" boot --kernel "$SID" --cpus 2 --timeout 60 --workload 'rt=20' \
		>"$TMP/boot.out" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q "CPU 1 - APIC ID 1" "$TMP/boot.out" &&
	   grep -q "^machload: done" "$TMP/boot.out"; then
		pass mach-smp-sid-boots-2-cpus
	else
		fail mach-smp-sid-boots-2-cpus "exit $rc: $(grep -E 'CPU|machload|panic|db' "$TMP/boot.out" | tail -n 4 | tr '\n' ' ')"
	fi
	# sessions on two CPUs are traced (live_smp.sh checks what they see)
	timeout 120 "$MACHTRACE" --kernel "$SID" --cpus 2 -q -n 'BEGIN { printf("cpus ok\n"); exit(0); }' \
		>"$TMP/cpus2.out" 2>"$TMP/cpus2.err"
	rc=$?
	if [ $rc = 0 ] && grep -q "^cpus ok$" "$TMP/cpus2.out"; then
		pass mach-smp-sid-cpus2-session
	else
		fail mach-smp-sid-cpus2-session "exit $rc: $(head -c 300 "$TMP/cpus2.err")"
	fi
	refused mach-smp-sid-cpus9 "is built for at most 8 CPUs" --kernel "$SID" --cpus 9 -n "$prog"
fi

if [ ! -f "$FORKY" ]; then
	echo "SKIP mach-smp-forky: missing $FORKY (scripts/setup.sh)"
else
	assert="biosmem_free_usable_range: Assertion \`page != NULL' failed."
	refused mach-smp-forky-session-names-assertion "$assert" --kernel "$FORKY" -n "$prog"
	grep -qF "before its console existed" "$TMP/mach-smp-forky-session-names-assertion.err" &&
		pass mach-smp-forky-session-says-kdb ||
		fail mach-smp-forky-session-says-kdb "$(head -c 300 "$TMP/mach-smp-forky-session-names-assertion.err")"
	refused mach-smp-forky-vm-names-assertion "$assert" vm start --name $VM --kernel "$FORKY"
	refused mach-smp-forky-boot-names-assertion "$assert" boot --kernel "$FORKY"
fi
