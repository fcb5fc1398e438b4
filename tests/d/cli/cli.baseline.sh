#!/bin/sh
# machtrace baseline's errors, before any machine boots (docs/baselines.md):
# an unknown baseline, a corrupt file, an unknown file version, a file of
# version 1 (one run), an icount machtrace does not use, malformed JSON
# and numbers out of bounds, a bad name or verb, an unknown VM, --workload with
# --vm, a bad -d or --runs and an unknown workload word are each refused, non-zero, with
# the reason; the usage line is in machtrace -h.
D=$T/baselines
mkdir -p "$D"
refuse() {	# want-rc what-to-find args...
	want=$1 msg=$2
	shift 2
	"$MT" baseline "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq "$want" ] && grep -q -- "$msg" "$T/err" ||
		{ echo "baseline $*: exit $rc (want $want), stderr: $(cat "$T/err")"; exit 1; }
}
refuse 1 "no baseline $D/nope.json" compare nope --dir "$D"
printf '{"machtrace-baseline": 2, "workload": "rt=1", "runs": [{"metrics": [' >"$D/cut.json"
refuse 1 "cut.json is not a machtrace baseline" compare cut --dir "$D"
printf '{"machtrace-baseline": 3, "workload": "rt=1", "runs": [], "stacks": []}' >"$D/v3.json"
refuse 1 "v3.json is not a machtrace baseline" compare v3 --dir "$D"
printf '{"machtrace-baseline": 2, "workload": "rt=1", "runs": [], "stacks": []}' >"$D/none.json"
refuse 1 "none.json is not a machtrace baseline" compare none --dir "$D"
printf '{"machtrace-baseline": 2, "workload": "rt=1", "runs": [{"metrics": []}], "stacks": []}' >"$D/one.json"
refuse 1 "one.json is not a machtrace baseline" compare one --dir "$D"
# version 1 held one run: no run-to-run spread to compare against
printf '{"machtrace-baseline": 1, "workload": "rt=1", "seconds": 0, "icount": "", "metrics": [], "stacks": []}' >"$D/v1.json"
refuse 1 "v1.json was saved by an older machtrace (one run, file version 1): save it again" compare v1 --dir "$D"
# two runs of one count: a file machtrace could have written, but for the
# field a check changes
good() {	# seconds icount
	printf '{"machtrace-baseline": 2, "workload": "rt=1", "seconds": %s, "icount": "%s",
 "runs": [{"metrics": [{"name": "a", "kind": "count", "samples": [1]}]},
  {"metrics": [{"name": "a", "kind": "count", "samples": [1]}]}], "stacks": []}' "$1" "$2"
}
# the stored icount goes to QEMU's -icount: rr=record,rrfile=PATH would
# have QEMU create PATH
good 1 "shift=0,rr=record,rrfile=$T/rr.bin" >"$D/rr.json"
refuse 1 "rr.json is not a machtrace baseline: icount 'shift=0,rr=record,rrfile=$T/rr.bin' is not one machtrace uses" compare rr --dir "$D"
[ ! -e "$T/rr.bin" ] || { echo "a baseline's icount made QEMU write $T/rr.bin"; exit 1; }
# hostile files: text cut inside an escape, numbers past what machtrace
# writes (a 1e30 -d once became a session of (long)1e30 s, 999999 s was
# run), a repeated key, a workload word machload does not know
printf '{"\\u1' >"$D/u.json"
refuse 1 "u.json is not a machtrace baseline: line 1 column 5: invalid escape" compare u --dir "$D"
printf '{"machtrace-baseline": 2, "workload\\' >"$D/bs.json"
refuse 1 "bs.json is not a machtrace baseline: line 1 column 36: invalid escape" compare bs --dir "$D"
for sec in 1e30 999999 -1 1.5; do
	good "$sec" "" >"$D/sec.json"
	refuse 1 'sec.json is not a machtrace baseline: "seconds" is not a whole number 0 to 3600' compare sec --dir "$D"
done
good 1e400 "" >"$D/big.json"
refuse 1 "big.json is not a machtrace baseline: line 1 column 62: real number overflow" compare big --dir "$D"
good 1 "" | sed 's/"samples": \[1\]}]},$/"samples": [1e30]}]},/' >"$D/samp.json"
refuse 1 "samp.json is not a machtrace baseline: metric 'a': sample 1 is not a whole number 0 to 2^53" compare samp --dir "$D"
good 1 "" | sed 's/"stacks": \[\]/"stacks": [{"stack": "main", "count": 1e300}]/' >"$D/st.json"
refuse 1 "st.json is not a machtrace baseline: stack 1: the count is not a whole number" compare st --dir "$D"
good 1 "" | sed 's/"stacks": \[\]/"stacks": [{"stack": "main", "count": 99999999999999999999}]/' >"$D/st2.json"
refuse 1 "st2.json is not a machtrace baseline: line 3 column .*: too big integer" compare st2 --dir "$D"
good 1 "" | sed 's/"seconds": 1,/"seconds": 1, "seconds": 2,/' >"$D/dup.json"
refuse 1 "dup.json is not a machtrace baseline: .*duplicate object key" compare dup --dir "$D"
good 1 "" | sed 's/"rt=1"/"rt=1 bogus=2"/' >"$D/wl.json"
refuse 1 "wl.json is not a machtrace baseline: unknown workload word 'bogus=2'" compare wl --dir "$D"
refuse 2 "--runs wants 2 to 100 runs" save x --runs 1 --dir "$D"
refuse 2 "--runs wants 2 to 100 runs" compare x --runs 101 --dir "$D"
refuse 2 "NAME is letters" save ../up --dir "$D"
refuse 2 "the verbs are save and compare" frob x --dir "$D"
refuse 2 "vm: no VM named nosuchvm" save x --vm nosuchvm --dir "$D"
refuse 2 "workload was fixed at vm start" save x --vm nosuchvm --workload rt=1 --dir "$D"
refuse 2 "-d wants whole seconds" save x -d 0 --dir "$D"
refuse 2 "too many operands" save x y --dir "$D"
refuse 2 "unknown workload word 'bogus=1'" save x --workload bogus=1 --dir "$D"
[ ! -e "$D/x.json" ] || { echo "a failed save left $D/x.json"; exit 1; }
"$MT" -h 2>&1 | grep -q 'baseline save|compare NAME' ||
	{ echo "machtrace -h does not show baseline"; exit 1; }
exit 0
