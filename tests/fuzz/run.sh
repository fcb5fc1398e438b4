#!/bin/sh
# Run the compiler's libFuzzer harness: tests/fuzz/run.sh DIR SECONDS
# (see tests/fuzz/fuzz.mk).  One process, one core; the seeds are the
# project's own D programs.  Prints "PASS fuzz ..." or "FAIL fuzz ...".
dir=$1 secs=$2
mkdir -p "$dir/corpus" "$dir/seeds" || exit 1
rm -f "$dir/seeds"/*
i=0
for f in $(find tests/d -name '*.d' | sort); do
	cp "$f" "$dir/seeds/$(echo "$f" | tr / _)"
	i=$((i + 1))
done
log=$dir/fuzz.log
# -rss_limit_mb: a compile may not take more than 2 GiB
"$dir/fuzz_compile" -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-rss_limit_mb=2048 -artifact_prefix="$dir/" -print_final_stats=1 \
	"$dir/corpus" "$dir/seeds" >"$log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ $rc -eq 0 ]; then
	echo "PASS fuzz compiler: ${execs:-?} runs in ${secs}s from $i seeds, no crash"
	exit 0
fi
echo "FAIL fuzz compiler: exit $rc after ${execs:-?} runs; $(grep -m1 -E 'ERROR:|runtime error' "$log")"
ls "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* 2>/dev/null | sed 's/^/    /'
exit 1
