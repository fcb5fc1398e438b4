#!/bin/sh
# -d prints the program after machtrace's rewrites ($N, $$N, cpp's macros
# with -C, probe descriptions with their macros expanded), then goes on:
# the dump compiles again and runs to the same output.
cat >"$T/p.d" <<'D'
#define TWICE(x) ((x) * 2)
BEGIN
/$1 > 0/
{ printf("%d %s\n", TWICE($1), $$2); exit(0); }
D
out=$("$MT" -d -q -C -s "$T/p.d" 21 'a "b"' 2>&1) || { echo "-d: $out"; exit 1; }
printf '%s\n' "$out" | tail -n 1 >"$T/run1"
printf '%s\n' "$out" | sed '$d' >"$T/dump.d"
[ "$(cat "$T/run1")" = '42 a "b"' ] || { echo "-d run: $(cat "$T/run1")"; exit 1; }
grep -q '\$' "$T/dump.d" && { echo "macros left: $(cat "$T/dump.d")"; exit 1; }
grep -q 'TWICE' "$T/dump.d" && { echo "cpp macro left: $(cat "$T/dump.d")"; exit 1; }
grep -q '/21 > 0/' "$T/dump.d" || { echo "no /21 > 0/: $(cat "$T/dump.d")"; exit 1; }
run2=$("$MT" -q -s "$T/dump.d" 2>&1) || { echo "dump does not run: $run2"; exit 1; }
[ "$run2" = "$(cat "$T/run1")" ] || { echo "dump runs to '$run2', not '$(cat "$T/run1")'"; exit 1; }
# a probe description's macro, in a -n
d=$("$MT" -d -e -n 'tick-$1s { exit(0); }' 3 2>&1) || { echo "-n: $d"; exit 1; }
[ "$d" = 'tick-3s { exit(0); }' ] || { echo "-n dump: '$d'"; exit 1; }
exit 0
