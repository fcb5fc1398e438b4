#!/bin/sh
# machtrace top and health before any machine boots (docs/top.md): --explain
# gives each of the ten counters its formula and says which are
# unavailable and why (never a number); --program is the D program top
# runs, and it compiles; bad options, a bad rules file (line and column),
# --workload with --vm and an unknown VM are refused with the reason; -h
# lists both commands.
"$MT" top --explain >"$T/ex" 2>"$T/err" || { echo "top --explain: $(cat "$T/err")"; exit 1; }
for w in "IPC latency" "scheduling latency" "VM pressure" "interrupt overhead" \
	 "lock contention" "memory bandwidth" "instructions" "cache misses" \
	 "branch mispredicts" "TLB misses" "uniprocessor" "unavailable: QEMU's TCG"; do
	grep -q "$w" "$T/ex" || { echo "top --explain lacks '$w'"; exit 1; }
done
! grep -q '%%' "$T/ex" || { echo "top --explain prints '%%': $(grep '%%' "$T/ex" | head -1)"; exit 1; }
"$MT" top --program >"$T/prog.d" 2>"$T/err" && grep -q "tick-1s" "$T/prog.d" &&
	"$MT" -e -s "$T/prog.d" 2>"$T/err" ||
	{ echo "top --program does not compile: $(cat "$T/err")"; exit 1; }
"$MT" top -d 5 --program | grep -q "tick-5s" || { echo "top -d 5: no tick-5s"; exit 1; }
refuse() {	# want-rc what-to-find args...
	want=$1 msg=$2
	shift 2
	"$MT" "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq "$want" ] && grep -q -- "$msg" "$T/err" && [ ! -s "$T/out" ] ||
		{ echo "$*: exit $rc (want $want), stderr: $(cat "$T/err")"; exit 1; }
}
refuse 2 "-n wants a count" top -n 0
refuse 2 "-d wants whole seconds" top -d x
refuse 2 "-d wants whole seconds" health -d 0
refuse 2 "no operands" top extra
refuse 2 "unknown workload word" top --workload bogus=1
refuse 2 "a VM's workload is fixed at vm start" top --vm v --workload rt=1
refuse 2 "--explain is top's" health --explain
printf 'faults_per_s > 100 -> many faults\n# comment\n\nfault_time_pct >= 5 for 3 intervals -> pressure\n' >"$T/good.rules"
printf 'faults_per_s > 100 -> ok\ncpu_pct => 5 -> bad op\n' >"$T/bad.rules"
refuse 2 "bad.rules: line 2, column 9: expected an operator" health --rules "$T/bad.rules"
printf 'no_such_metric > 1 -> x\n' >"$T/unk.rules"
refuse 2 "unk.rules: line 1, column 1: unknown metric 'no_such_metric'" top --rules "$T/unk.rules"
refuse 2 "cannot read" top --rules "$T/none.rules"
refuse 2 "no VM named nosuchvm" top --vm nosuchvm --rules "$T/good.rules"
"$MT" -h 2>&1 | grep -q 'top \[--vm NAME\]' && "$MT" -h 2>&1 | grep -q 'health \[--vm NAME\]' ||
	{ echo "machtrace -h does not show top and health"; exit 1; }
exit 0
