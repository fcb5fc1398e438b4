# Helpers of the persistent-VM tests (sourced): one VM per test, named
# after the test's pid, stopped on any exit.
. "$(dirname "$0")/live_lib.sh"
VM=e2e-$$
SHM=	# the RAM file, /dev/shm/machtrace-vm-UID-VM.XXXXXX: info's shm= after start
if [ -n "${XDG_RUNTIME_DIR:-}" ] && [ "${XDG_RUNTIME_DIR#/}" != "$XDG_RUNTIME_DIR" ]; then
	VMDIR=$XDG_RUNTIME_DIR/machtrace/vm/$VM
else
	VMDIR=/tmp/machtrace-$(id -u)/vm/$VM
fi
trap '"$MACHTRACE" vm stop "$VM" >/dev/null 2>&1; rm -rf "$TMP"' EXIT

need_vm() {
	need_live "$1"
	if ! "$MACHTRACE" vm start --name "$VM" --memory 256 --workload "${2:-rpcs=20 serve=50}" \
	     >"$TMP/start.out" 2>"$TMP/start.err"; then
		fail "$1" "vm start: $(cat "$TMP/start.err")"
		exit 1
	fi
	QEMU_PID=$(cat "$VMDIR/qemu.pid")
	SHM=$(sed -n 's/^shm=//p' "$VMDIR/info")
}

# The kernel text in the VM's RAM file against the image (0: identical);
# VM_KERNEL: the VM's kernel when not the stock one.
text_stock() {
	"$LIVE" textcheck "$SHM" "${VM_KERNEL:-$KERNEL}" >/dev/null 2>&1
}

# A consumer of PROGRAM killed with SIGKILL once its sites are in (1 s
# deadman): 0 when the text was patched while it ran and is stock again
# within 15 s (the blob's deadman); else 1 with why in $killed_why.
killed_session_restores() {
	local victim patched i
	MACHTRACE_DEADMAN_MS=1000 "$MACHTRACE" --vm "$VM" -q -n "$1" >/dev/null 2>&1 &
	victim=$!
	for i in $(seq 1 200); do ! text_stock && break; sleep 0.05; done
	patched=$(text_stock && echo no || echo yes)
	kill -9 $victim; wait $victim 2>/dev/null
	for i in $(seq 1 150); do text_stock && break; sleep 0.1; done
	[ "$patched" = yes ] && text_stock && return 0
	killed_why="patched while attached: $patched; $("$LIVE" textcheck "$SHM" "${VM_KERNEL:-$KERNEL}" 2>&1 | head -c 200)"
	return 1
}

# After vm stop: no QEMU, no RAM file, no state directory.
nothing_left() {	# test name
	if kill -0 "$QEMU_PID" 2>/dev/null; then
		fail "$1" "QEMU (pid $QEMU_PID) still runs"
	elif ! no_ram "$VM"; then
		fail "$1" "a RAM file of $VM left in /dev/shm"
	elif [ -e "$VMDIR" ]; then
		fail "$1" "$VMDIR left behind"
	else
		pass "$1"
	fi
}
