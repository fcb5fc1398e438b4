#!/usr/bin/env bash
# Measured figures live in one table, docs/figures.md, which `make bench`
# reproduces; README.md and the other docs point to it.  Two copies of a
# figure drift apart (docs/live-kernel.md once said x1.017 and x9.5 where
# the README said x1.005 and x7.4).  This finds figure-like text outside
# that table: ratios (x1.07), ns, cycles, seconds of boot time, and
# "N of M" counts of the kernel's probes (M of four or more digits).
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
exit $fail
