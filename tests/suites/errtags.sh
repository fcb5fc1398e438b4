#!/usr/bin/env bash
# The D error tags are defined once, in include/machtrace/errtags.h
# (MT_DTAGS), and code names the enum constants:
#   - no C source outside that header writes a tag as a string ("D_X",
#     "[D_X] "), where a typo would silently make a new tag;
#   - every tag of the table is used by some code (no dead tags);
#   - every test named err.D_TAG.* under tests/d names a tag of the table,
#     so a test cannot expect a tag the compiler can never give.
set -u
cd "$(dirname "$0")/../.."
H=include/machtrace/errtags.h
SRC="compiler common link cmd consumer targets runtime include"
fail=0

tags=$(sed -n 's/^[[:space:]]*X(\(D_[A-Z0-9_]*\)).*/\1/p' "$H")
if [ -z "$tags" ]; then
	echo "FAIL errtags-table: no X(D_...) entries in $H"
	exit 1
fi
dups=$(echo "$tags" | sort | uniq -d)
if [ -n "$dups" ]; then
	echo "FAIL errtags-table: listed twice: $dups"
	fail=1
fi

# String literals on lines that are not comments, holding a D_ word.
lits=$(find $SRC -name '*.[ch]' ! -path "$H" | xargs perl -ne '
	next if m{^\s*(/?\*|//)};
	while (/"((?:\\.|[^"\\])*)"/g) {
		my $s = $1;
		if ($s =~ /\bD_[A-Z][A-Z0-9_]*/) { print "$ARGV:$.: $_"; last }
	}
	close ARGV if eof')
if [ -n "$lits" ]; then
	echo "FAIL errtags-literals: tag strings outside $H:"
	echo "$lits" | head -20
	fail=1
else
	echo "PASS errtags-literals"
fi

unused=
for t in $tags; do
	grep -rqw --include='*.c' --include='*.h' "$t" $SRC --exclude=errtags.h ||
		unused="$unused $t"
done
if [ -n "$unused" ]; then
	echo "FAIL errtags-unused: in $H but used nowhere:$unused"
	fail=1
else
	echo "PASS errtags-unused"
fi

bad=
n=0
for f in $(find tests/d -name 'err.D_*'); do
	t=$(basename "$f" | sed 's/^err\.\(D_[A-Z0-9_]*\)\..*/\1/')
	n=$((n + 1))
	echo "$tags" | grep -qx "$t" || bad="$bad $f"
done
if [ -n "$bad" ]; then
	echo "FAIL errtags-tests: tests name tags not in $H:$bad"
	fail=1
elif [ "$n" -eq 0 ]; then
	echo "FAIL errtags-tests: no err.D_* tests found"
	fail=1
else
	echo "PASS errtags-tests ($n files)"
fi
exit $fail
