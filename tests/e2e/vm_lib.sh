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

# The kernel text in the VM's RAM file against the image (0: identical).
text_stock() {
	"$LIVE" textcheck "$SHM" "$KERNEL" >/dev/null 2>&1
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
