#!/bin/sh
# Run the libFuzzer harnesses: tests/fuzz/run.sh DIR SECONDS MACHTRACE
# NAME... (see tests/fuzz/fuzz.mk).  Each harness runs for its share of
# SECONDS, one process on one core, from its seeds (DIR/NAME/seeds) and
# its corpus (DIR/NAME/corpus).  Prints "PASS fuzz NAME ..." or "FAIL fuzz
# NAME ..." per harness; exits 1 when any failed.
dir=$1 secs=$2 mt=$3
shift 3
share=$((secs / $#))
[ "$share" -ge 1 ] || share=1
fail=0

# The seeds of harness $1 into $2; prints their number.
seeds() {
	case $1 in
	compile|run)
		for f in $(find tests/d -name '*.d' | sort); do
			cp "$f" "$2/$(echo "$f" | tr / _)"
		done ;;
	ctf)	# traces machtrace records on the local target, packed as
		# fuzz_ctf.c reads them
		n=0
		for p in 'BEGIN { trace(1); printf("%d %s\n", 7, "x"); exit(0); }' \
			 'BEGIN { @a[1, "k"] = count(); @q = quantize(5); exit(0); }' \
			 'tick-1ms /i++ < 5/ { trace(i); trace(probename); } tick-1ms /i >= 5/ { exit(0); }'; do
			rm -rf "$dir/rec"
			"$mt" record -q -o "$dir/rec" -n "$p" >/dev/null 2>&1 || continue
			{ cat "$dir/rec/kernel/metadata"; printf '\0\0STREAM\0\0'
			  cat "$dir/rec/kernel/channel0_0" 2>/dev/null; } >"$2/trace$n"
			n=$((n + 1))
		done
		rm -rf "$dir/rec" ;;
	*)
		cp tests/fuzz/seeds/"$1"/* "$2/" ;;
	esac
	ls "$2" | wc -l
}

for h in "$@"; do
	d=$dir/$h
	mkdir -p "$d/corpus" "$d/seeds" || exit 1
	rm -rf "$d/seeds"/* "$d"/crash-* "$d"/leak-* "$d"/timeout-* "$d"/oom-* "$d"/mt-fuzz-*
	nseeds=$(seeds "$h" "$d/seeds")
	log=$d/fuzz.log
	# -rss_limit_mb: an input may not take more than 2 GiB;
	# -close_fd_mask=1: the harnesses' own output (why an input does not
	# compile) stays out of the log
	TMPDIR=$d "$dir/fuzz_$h" -max_total_time="$share" -max_len=4096 -timeout=10 \
		-rss_limit_mb=2048 -close_fd_mask=1 -artifact_prefix="$d/" \
		-print_final_stats=1 "$d/corpus" "$d/seeds" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ $rc -eq 0 ]; then
		echo "PASS fuzz $h: ${execs:-?} runs in ${share}s from $nseeds seeds, no crash"
		continue
	fi
	fail=1
	echo "FAIL fuzz $h: exit $rc after ${execs:-?} runs; $(grep -m1 -E 'ERROR:|runtime error|fuzz run:' "$log")"
	ls "$d"/crash-* "$d"/leak-* "$d"/timeout-* "$d"/oom-* 2>/dev/null | sed 's/^/    /'
done
exit $fail
