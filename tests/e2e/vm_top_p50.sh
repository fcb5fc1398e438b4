#!/usr/bin/env bash
# engines: once (its bound is the compiled engine's probe effect)
# Issue 26: top's IPC p50 on a serve VM against what a minimal D latency
# program measures on the same VM (mach_msg_trap entry -> return, alone in
# its own session, before top's).  The VM runs under
# MACHTRACE_ICOUNT=shift=0, so a guest ns is an instruction and neither
# figure depends on the host's load.  top prints whole us only, so its
# p50 is read from health (the same program and code), whose metrics
# lines give ipc_p50_us to 0.01 us (the mean of its intervals' p50); the
# minimal program's p50 is the middle of the 25 ns bucket holding the
# middle rank of its lquantize.  The ratio is printed as a figure line
# (not a row of docs/figures.md); the issue's bound is 2: 2.95 while
# top's own send and receive clauses ran between its two timestamps,
# 1.33 since the send's is taken last and the receive's first.
set -u
. "$(dirname "$0")/vm_lib.sh"
export MACHTRACE_ICOUNT=shift=0
need_vm vm-top-p50 "serve=200"

cat >"$TMP/min.d" <<'D'
fbt::mach_msg_trap:entry { self->ts = timestamp; }
fbt::mach_msg_trap:return /self->ts/ {
	@lat = lquantize((timestamp - self->ts) / 25, 0, 400, 1); self->ts = 0; }
tick-3s { exit(0); }
D
timeout 120 "$MACHTRACE" --vm "$VM" -q -s "$TMP/min.d" >"$TMP/min.out" 2>"$TMP/min.err"
rc_min=$?
timeout 120 "$MACHTRACE" health --vm "$VM" -d 3 >"$TMP/top.out" 2>"$TMP/top.err"
rc_top=$?

# the minimal program's p50 in ns: the middle of the bucket holding rank n/2
min_ns=$(awk '$2 == "|" && $1 ~ /^[<>]?=?[0-9]+$/ { v = $1; sub(/^[<>]=?/, "", v); b[++k] = v; c[k] = $NF; n += $NF }
	END { if (n == 0) exit; for (i = 1; i <= k; i++) { s += c[i]; if (2 * s >= n) { print (b[i] + 0.5) * 25; exit } } }' "$TMP/min.out")
# top's, in ns
top_ns=$(awk '$1 == "ipc_p50_us" && $2 ~ /^[0-9.]+$/ { print $2 * 1000; exit }' "$TMP/top.out")
if [ $rc_min != 0 ] || [ $rc_top != 0 ] || [ -z "$min_ns" ] || [ -z "$top_ns" ]; then
	fail vm-top-p50-measured "minimal exit $rc_min p50 '${min_ns:-}', top exit $rc_top p50 '${top_ns:-}': $(head -c 300 "$TMP/min.err" "$TMP/top.err")"
	exit 1
fi
pass vm-top-p50-measured
ratio=$(awk -v t="$top_ns" -v m="$min_ns" 'BEGIN { printf "%.2f", t / m }')
echo "figure: top ipc p50 ${top_ns} ns, minimal mach_msg_trap p50 ${min_ns} ns, ratio $ratio"
if awk -v r="$ratio" 'BEGIN { exit !(r <= 2) }'; then
	pass vm-top-p50-within-2x
else
	fail vm-top-p50-within-2x "ratio $ratio (top $top_ns ns, minimal $min_ns ns)"
fi
