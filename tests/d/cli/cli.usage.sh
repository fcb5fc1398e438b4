#!/bin/sh
# No arguments or an unknown flag: usage on stderr, exit status 2.
"$MT" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || { echo "no args: exit $rc"; exit 1; }
grep -q '^Usage: ' "$T/err" || { echo "no usage text"; exit 1; }
grep -q 'MACHTRACE_CONSOLE_LOG=FILE' "$T/err" || { echo "usage lacks MACHTRACE_CONSOLE_LOG"; exit 1; }
"$MT" -k -n BEGIN 2>/dev/null; rc=$?
[ $rc -eq 2 ] || { echo "-k: exit $rc"; exit 1; }
"$MT" -G -n BEGIN 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || { echo "-G: exit $rc"; exit 1; }
grep -q 'not supported' "$T/err" || { echo "-G: no plain message"; exit 1; }
"$MT" -l -V 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || { echo "-l -V: exit $rc"; exit 1; }
