#!/usr/bin/env bash
# Measured figures live in one table, docs/figures.md, which `make bench`
# writes (bench/figures.sh, from the outputs each benchmark keeps);
# README.md and the other docs point to it.  Two copies of a figure drift
# apart (docs/live-kernel.md once said x1.017 and x9.5 where the README
# said x1.005 and x7.4), and a hand-edited table passes old numbers for
# measured ones.  This checks, without running the benchmarks (minutes of
# QEMU, not a test):
#   figures-one-place   no figure-like text outside that table: ratios
#                       (x1.07), ns, cycles, seconds of boot time, and
#                       "N of M" counts of the kernel's probes
#   figures-generated   docs/figures.md carries the generator's header
#                       (command and date) and the rows the generator
#                       writes, in its order
#   figures-generator   bench/figures.sh turns sample outputs of the
#                       benchmarks (tests/suites/figures-sample/) into the
#                       table, and writes nothing when a figure is missing
set -u
cd "$(dirname "$0")/../.."
fail=0
for f in docs/figures.md README.md; do
	[ -f "$f" ] || { echo "FAIL figures: $f missing"; exit 1; }
done
if ! grep -q 'docs/figures.md' README.md; then
	echo "FAIL figures-readme: README.md does not point to docs/figures.md"
	fail=1
fi
RE='\bx[0-9]+\.[0-9]+\b|[0-9] ?ns\b|[0-9]+ (TCG )?cycles|[0-9.]+ s vs|[0-9]+ of [0-9]{4,}'
hits=$(grep -nE "$RE" README.md docs/*.md compiler/README.md | grep -v '^docs/figures.md:')
if [ -n "$hits" ]; then
	echo "FAIL figures-one-place: figures outside docs/figures.md:"
	echo "$hits"
	fail=1
else
	echo "PASS figures-one-place"
fi

# figures-generator: sample outputs in, the table out
T=$(mktemp -d /tmp/mt-figures.XXXXXX)
trap 'rm -rf "$T"' EXIT
S=tests/suites/figures-sample
if ! FIGURES_DATE="2000-01-01 00:00 UTC" bench/figures.sh "$S" >"$T/gen.md" 2>"$T/err"; then
	echo "FAIL figures-generator: fails on the samples: $(head -c 300 "$T/err")"
	fail=1
elif ! grep -q '^| boot to .* | 0.166 s vs 0.734 s (4.42x) |' "$T/gen.md" ||
     ! grep -q '| x1.005 (x1.976 without the count() fast path) |' "$T/gen.md" ||
     ! grep -q '| x1.020 |' "$T/gen.md" ||
     ! grep -q '| 1066 guest instructions |' "$T/gen.md" ||
     ! grep -q '| 26.7 / 54.1 / 38.7 / 32.7 ns (19.7x to 39.9x an empty call) |' "$T/gen.md" ||
     ! grep -q '| 1851 entry + 1460 return |' "$T/gen.md" ||
     ! grep -q '| 249.0 / 223.0 ns (the lookup adds 26 ns) |' "$T/gen.md" ||
     ! grep -q '^| `@ = count()`, general path (`count`) | 683 | 451 | 30.3 | 10.1 | 47.2 |$' "$T/gen.md" ||
     ! grep -q '^| `trace(arg0)` (`trace`) | .* | - |$' "$T/gen.md" ||
     ! grep -q '^| .*(`fast-count`) | 3 | - | - | - | - |$' "$T/gen.md" ||
     ! grep -q 'Stock round trip: 1346 instructions.*' "$T/gen.md" ||
     ! grep -q '^| `ipc:::send { @\[args\[0\]->msg_id\] = count(); }` (`ipc-msg-id`) | 1459 | 1394 | 1.000 |$' "$T/gen.md" ||
     ! grep -q '^| `proc:::lwp-create { @ = count(); }` (`lwp-create-count`) | 1642 | - | 1.000 |$' "$T/gen.md" ||
     ! grep -q '2810 instructions (x2.080 of stock 1351)' "$T/gen.md" ||
     ! grep -q '^| `@ = count()`, general path (`count`) | 23 | 51 | +28 |$' "$T/gen.md" ||
     ! grep -q '^| .*(`latency-pair`) | 99 | 127 | +28 |$' "$T/gen.md" ||
     ! grep -q '^| stock round trip, guest instructions | 1412 | 1413 | - |$' "$T/gen.md" ||
     ! grep -q '^| round trip with .*, ratio to stock | x1.316 | x1.396 | - |$' "$T/gen.md"; then
	echo "FAIL figures-generator: the samples' figures are not in its table:"
	grep '^| ' "$T/gen.md"
	fail=1
else
	partial() {	# what is missing, file, sed expression deleting it
		rm -rf "$T/part" && mkdir "$T/part" && cp "$S"/*.out "$T/part/"
		sed -i "$3" "$T/part/$2"
		if bench/figures.sh "$T/part" >"$T/part.md" 2>/dev/null || [ -s "$T/part.md" ]; then
			echo "FAIL figures-generator: writes a table without $1"
			return 1
		fi
	}
	if partial "the GRUB boot time" boot.out '/GRUB ISO/d' &&
	   partial "a firing figure" firing.out '/^firing key-probefunc /d' &&
	   partial "an interpreter figure" firing.out '/^firing trace interpreter /d' &&
	   partial "a host figure" firing.out '/^host printf /d' &&
	   partial "a compiled host figure" firing.out '/^host trace compiled /d' &&
	   partial "a provider figure" provider.out '/^provider fault-fname-cast /d' &&
	   partial "a two-CPU figure" smp.out 's/ cpus2 127$//'; then
		echo "PASS figures-generator"
	else
		fail=1
	fi
	# where bpftrace does not work, its column is "-" and the text says why
	rm -rf "$T/part" && mkdir "$T/part" && cp "$S"/*.out "$T/part/"
	sed -i '/^bpftrace /d' "$T/part/firing.out"
	echo "bpftrace unavailable: not root" >> "$T/part/firing.out"
	if FIGURES_DATE="2000-01-01 00:00 UTC" bench/figures.sh "$T/part" >"$T/part.md" 2>/dev/null &&
	   grep -q '^| `@ = count()`, general path (`count`) | 683 | 451 | 30.3 | 10.1 | - |$' "$T/part.md" &&
	   tr '\n' ' ' <"$T/part.md" | grep -q 'not measured here, not root'; then
		echo "PASS figures-generator-without-bpftrace"
	else
		echo "FAIL figures-generator-without-bpftrace: $(grep 'general path' "$T/part.md")"
		fail=1
	fi
	# without sid's SMP kernel the two-CPU section says why, and has no row
	rm -rf "$T/part" && mkdir "$T/part" && cp "$S"/*.out "$T/part/"
	echo "smp unavailable: missing build/kernels/sid-smp/gnumach-dbg (scripts/setup.sh)" >"$T/part/smp.out"
	if FIGURES_DATE="2000-01-01 00:00 UTC" bench/figures.sh "$T/part" >"$T/part.md" 2>/dev/null &&
	   grep -q '^Not measured by this run: missing build/kernels/sid-smp' "$T/part.md" &&
	   ! grep -q '(`latency-pair`) | 99 |' "$T/part.md"; then
		echo "PASS figures-generator-without-smp-kernel"
	else
		echo "FAIL figures-generator-without-smp-kernel: $(grep -i 'not measured by this run' "$T/part.md")"
		fail=1
	fi
fi

# figures-generated: the committed table is the generator's
rows() { sed -n 's/^| \([^|]*\) |.*/\1/p' "$1"; }
if ! sed -n 3p docs/figures.md | grep -qE \
	'^Written by `make bench` \(bench/figures.sh\) on [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC\.$'; then
	echo "FAIL figures-generated: docs/figures.md line 3 is not bench/figures.sh's header (run make bench)"
	fail=1
elif [ -s "$T/gen.md" ] && ! diff <(rows docs/figures.md) <(rows "$T/gen.md") >"$T/rows.diff"; then
	echo "FAIL figures-generated: docs/figures.md's rows differ from bench/figures.sh's (run make bench):"
	cat "$T/rows.diff"
	fail=1
else
	echo "PASS figures-generated"
fi
exit $fail
