#!/usr/bin/env bash
# bpftrace's cost per firing for the firing bench's clauses, on this
# host's Linux kernel, where bpftrace works: its JIT-compiled programs on
# the getppid system call's tracepoints, timed by bench/syscall_loop.c.
# A clause's cost is the loop's ns per call with it minus with an empty
# clause on the same tracepoints (the tracepoints' own cost), each the
# best of 5 loops under one attachment.
#   bpftrace NAME ns N          (one line per clause)
#   bpftrace unavailable: WHY   (and exit 0: the bench goes on without)
# Needs root (bpf(2), tracefs); installs Debian's bpftrace if missing.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${N_SYSCALLS:-2000000}
unavailable() { echo "bpftrace unavailable: $*"; exit 0; }

[ "$(id -u)" = 0 ] || unavailable "not root"
if ! command -v bpftrace >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bpftrace >/dev/null 2>&1 ||
		unavailable "Debian's bpftrace package could not be installed"
fi
[ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
	unavailable "tracefs cannot be mounted"
mkdir -p "$BUILD/bench"
loop=$BUILD/bench/syscall_loop
${CC:-cc} -O2 -o "$loop" bench/syscall_loop.c || unavailable "bench/syscall_loop.c did not build"
TMP=$(mktemp -d /tmp/mt-bpftrace.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

E=tracepoint:syscalls:sys_enter_getppid
X=tracepoint:syscalls:sys_exit_getppid
# NAME|firings per call|program
variants=(
	"empty|1|$E { }"
	"count|1|$E { @ = count(); }"
	"false-predicate|1|$E /args->__syscall_nr == 0xdeadbeef/ { @ = count(); }"
	"execname-predicate|1|$E /comm == \"syscall_loop\"/ { @ = count(); }"
	"key-execname|1|$E { @[comm] = count(); }"
	"key-probefunc|1|$E { @[probe] = count(); }"
	"empty-pair|2|$E { } $X { }"
	"latency-pair|2|$E { @ts[tid] = nsecs; } $X /@ts[tid]/ { @ = hist(nsecs - @ts[tid]); delete(@ts[tid]); }"
)

best() {	# program: the loop's best ns per call of 5 while it is attached
	local pid b= v
	bpftrace -e "$1" >"$TMP/out" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -q "^Attaching" "$TMP/out" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	sleep 1
	if ! kill -0 $pid 2>/dev/null; then
		echo "bpftrace failed: $(grep -m1 ERROR "$TMP/out")" >&2
		return 1
	fi
	for _ in 1 2 3 4 5; do
		v=$("$loop" "$N")
		b=$(awk -v a="$v" -v b="$b" 'BEGIN { print (b == "" || a < b) ? a : b }')
	done
	kill -INT $pid; wait $pid 2>/dev/null
	echo "$b"
}

declare -A ns
for v in "${variants[@]}"; do
	IFS='|' read -r name per prog <<<"$v"
	ns[$name]=$(best "$prog") || unavailable "bpftrace does not attach here: $(grep -m1 ERROR "$TMP/out")"
	[ "$name" = empty ] || [ "$name" = empty-pair ] && continue
	base=${ns[empty]}
	[ "$per" = 2 ] && base=${ns[empty-pair]}
	awk -v n="$name" -v a="${ns[$name]}" -v b="$base" -v k="$per" \
		'BEGIN { d = (a - b) / k; printf "bpftrace %s ns %.1f\n", n, d < 0 ? 0 : d }'
done
