# Shared helpers of the GNU Mach end-to-end tests (sourced, not run).
# Run from the repository root.  MACHTRACE is the CLI; MT the target's own
# test driver (build/bin/mt-mach) for what the CLI does not offer.
BUILD=${BUILD:-build}
MACHTRACE=${MACHTRACE:-$BUILD/bin/machtrace}
MT=${MT:-$BUILD/bin/mt-mach}
KERNEL=$BUILD/kernel/gnumach-dbg
TMP=$(mktemp -d /tmp/mt-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# Passes when no QEMU child of ours (-name machtrace-PID-...) and no guest
# RAM file of ours (older launchers: /dev/shm/machtrace-PID-*) is left.
no_leftovers() {	# name, pid of the driver run
	local left
	left=$(ls /dev/shm 2>/dev/null | grep -c "^machtrace-$2-" || true)
	if pgrep -f "machtrace-$2-" >/dev/null; then
		fail "$1" "a QEMU of pid $2 is still running"
	elif [ "$left" != 0 ]; then
		fail "$1" "guest RAM file /dev/shm/machtrace-$2-* left behind"
	else
		pass "$1"
	fi
}

need_kernel() {
	if [ ! -x "$MACHTRACE" ] || [ ! -x "$MT" ] || [ ! -f "$KERNEL" ]; then
		echo "SKIP $1: missing $MACHTRACE, $MT or $KERNEL (run make setup all)"
		exit 0
	fi
}
