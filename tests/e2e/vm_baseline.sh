#!/usr/bin/env bash
# machtrace baseline on a running VM (issue 14 item 4), 3 runs of 2 s a side: under -icount
# (the VM started with MACHTRACE_ICOUNT=shift=0), `baseline save --vm`
# then `baseline compare --vm` on the same VM finds no regression (exit
# 0: this also fails if a timestamp past 2^32 ns loses its high half, as
# the measurement's rtlast did); a VM whose machload spins on rt's server
# side (spin=N) compares as regressed (exit 3) naming rt's IPC latency.
# Refused with the reason: --workload or --icount with --vm, and a VM
# baseline compared without --vm.
set -u
export MACHTRACE_ICOUNT=shift=0
. "$(dirname "$0")/vm_lib.sh"
D=$TMP/bl
need_vm vm-baseline "rt=50 rpcs=10 serve=100"
"$MACHTRACE" baseline save b --vm "$VM" -d 2 --runs 3 --dir "$D" >"$TMP/save.out" 2>"$TMP/save.err"; rs=$?
"$MACHTRACE" baseline compare b --vm "$VM" --dir "$D" >"$TMP/same.out" 2>"$TMP/same.err"; rc=$?
if [ $rs = 0 ] && [ $rc = 0 ] && grep -q '"workload": "vm:' "$D/b.json" &&
   grep -q '"icount": "shift=0"' "$D/b.json" && grep -q "^no regression" "$TMP/same.out"; then
	pass vm-baseline-same-vm-no-regression
else
	fail vm-baseline-same-vm-no-regression "save $rs, compare $rc: $(cat "$TMP/save.err" "$TMP/same.out" "$TMP/same.err" | head -c 800)"
fi
refuse() {	# name want-rc what-to-find args...
	local name=$1 want=$2 msg=$3
	shift 3
	"$MACHTRACE" baseline "$@" >"$TMP/r.out" 2>"$TMP/r.err"; local r=$?
	if [ $r = "$want" ] && grep -q -- "$msg" "$TMP/r.err"; then pass "$name"; else
		fail "$name" "exit $r: $(cat "$TMP/r.err")"; fi
}
refuse vm-baseline-no-workload 2 "workload was fixed at vm start" save c --vm "$VM" --workload rt=5 --dir "$D"
refuse vm-baseline-no-icount 2 "instruction counting was fixed at vm start" save c --vm "$VM" --icount --dir "$D"
refuse vm-baseline-compare-needs-vm 2 "measured on a running VM ($VM): compare it with --vm" compare b --dir "$D"
"$MACHTRACE" vm stop "$VM" >/dev/null 2>&1
need_vm vm-baseline "rt=50 rpcs=10 spin=20000 serve=100"
"$MACHTRACE" baseline compare b --vm "$VM" --dir "$D" >"$TMP/spin.out" 2>"$TMP/spin.err"; rc=$?
if [ $rc = 3 ] && grep -q "^regressed: ipc latency of rt (4242) p50 +" "$TMP/spin.out"; then
	pass vm-baseline-spin-regressed
else
	fail vm-baseline-spin-regressed "exit $rc: $(cat "$TMP/spin.out" "$TMP/spin.err" | head -c 800)"
fi
"$MACHTRACE" vm stop "$VM" >/dev/null 2>&1
nothing_left vm-baseline-nothing-left
