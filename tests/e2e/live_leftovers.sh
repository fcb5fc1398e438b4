#!/usr/bin/env bash
# Nothing is left behind (issue 7, item 18): whatever ends machtrace --
# SIGKILL, SIGTERM, SIGINT -- while the kernel boots, while the runtime
# waits in the kernel's boot hook for INIT, or while tracing, no QEMU of
# it remains and no guest RAM file is left in /dev/shm.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-leftovers

shm_count() { ls /dev/shm 2>/dev/null | grep -c "^machtrace-" || true; }

# wait until QEMU of machtrace $1 is gone (PR_SET_PDEATHSIG is asynchronous)
qemu_gone() {
	for i in $(seq 100); do
		pgrep -f "machtrace-$1-" >/dev/null || return 0
		sleep 0.1
	done
	return 1
}

check() {	# name, pid, shm files before
	local left
	if ! qemu_gone "$2"; then
		fail "$1" "QEMU of machtrace $2 still running"
		pkill -KILL -f "machtrace-$2-"
		return
	fi
	left=$(shm_count)
	if [ "$left" -gt "$3" ]; then
		fail "$1" "$((left - $3)) new /dev/shm/machtrace-* file(s): $(ls /dev/shm | grep machtrace- | tr '\n' ' ')"
	else
		pass "$1"
	fi
}

# phase: boot (QEMU started, nothing from the kernel yet), init (the
# runtime waits for INIT), trace (the workload runs under the probes)
run_phase() {	# signal, phase
	local sig=$1 phase=$2 pid before stall=
	before=$(shm_count)
	[ "$phase" = init ] && stall=1
	MACHTRACE_TEST_STALL_INIT=$stall MACHTRACE_CONSOLE_LOG=$TMP/$phase.con \
		"$MACHTRACE" --timeout 120 --workload "rt=5000000" \
		-n 'fbt::mach_msg_trap:entry { @ = count(); }' >"$TMP/$phase.out" 2>"$TMP/$phase.err" &
	pid=$!
	for i in $(seq 600); do
		case $phase in
		boot) pgrep -f "machtrace-$pid-" >/dev/null && break ;;
		init) grep -q "stalled before INIT" "$TMP/$phase.err" && break ;;
		trace) grep -q "machload: start" "$TMP/$phase.con" 2>/dev/null && break ;;
		esac
		sleep 0.05
	done
	kill -$sig $pid 2>/dev/null
	wait $pid 2>/dev/null
	check "live-no-leftovers-$sig-$phase" $pid "$before"
}

for phase in boot init trace; do
	run_phase KILL $phase
done
for phase in init trace; do
	run_phase TERM $phase
	run_phase INT $phase
done
