#!/bin/sh
# -xempty with a program of no clauses: linking it matches no probes and
# exits 1 (mt_link once passed qsort a NULL array for it: undefined
# behaviour that the sanitizer pass of make check reports).
printf '/* no clauses */\n' >"$T/empty.d"
"$MT" -xempty -s "$T/empty.d" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] || { echo "exit $rc: $(head -c 300 "$T/err")"; exit 1; }
grep -q 'no probes matched' "$T/err" || { echo "$(head -c 300 "$T/err")"; exit 1; }
exit 0
