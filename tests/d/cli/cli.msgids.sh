#!/bin/sh
# -x msgids=PATH (machtrace): a missing, malformed or empty source is a
# clear error and exit 1, whether or not the program names messages; an
# empty path and the option in a D program are refused; a FIFO is not
# waited on.
check() {	# expected-rc stderr-pattern args...
	want=$1 pat=$2; shift 2
	timeout 10 "$MT" "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq "$want" ] || { echo "$*: exit $rc, not $want: $(cat "$T/err")"; exit 1; }
	grep -q -- "$pat" "$T/err" || { echo "$*: $(cat "$T/err")"; exit 1; }
}
printf 'sys 100 ok 0 100 200\nnot a msgids line\n' >"$T/bad.msgids"
printf 'sys 100 ok 0 100 200\n' >"$T/good.msgids"
mkdir -p "$T/empty"
check 1 "^dtrace: failed to load msgids: $T/nope: No such file or directory$" \
	-x msgids="$T/nope" -n 'BEGIN{exit(0)}'
check 1 "^dtrace: failed to load msgids: $T/bad.msgids:2: expected 'subsystem base routine n request-id reply-id'" \
	-x msgids="$T/bad.msgids" -n 'BEGIN{trace(mach_msgname(100)); exit(0)}'
check 1 "^dtrace: failed to load msgids: $T/nope" \
	-x msgids="$T/good.msgids:$T/nope" -n 'BEGIN{exit(0)}'
check 1 "^dtrace: failed to load msgids: $T/nope" \
	-x msgids="$T/good.msgids" -x msgids="$T/nope" -n 'BEGIN{exit(0)}'
check 1 "^dtrace: failed to load msgids: $T/empty: no routines" \
	-x msgids="$T/empty" -n 'BEGIN{exit(0)}'
check 1 "^dtrace: failed to set -x msgids: Invalid value for specified option" \
	-x msgids="$T/good.msgids::" -n 'BEGIN{exit(0)}'
# a FIFO is refused, not waited on (nothing writes to it); a NUL byte is
# named as such
mkfifo "$T/fifo.msgids"
check 1 "^dtrace: failed to load msgids: $T/fifo.msgids: not a regular file$" \
	-x msgids="$T/fifo.msgids" -n 'BEGIN{exit(0)}'
rm -f "$T/fifo.msgids"
printf 'sys 100 ok 0 100 200\nsys 101 b\000d 0 101 201\n' >"$T/nul.msgids"
check 1 "^dtrace: failed to load msgids: $T/nul.msgids:2: holds a NUL byte" \
	-x msgids="$T/nul.msgids" -n 'BEGIN{exit(0)}'
printf '#pragma D option msgids=%s\nBEGIN { exit(0); }\n' "$T/good.msgids" >"$T/p.d"
check 1 "Option cannot be used from within a D program" -s "$T/p.d"
if [ "$(id -u)" != 0 ]; then
	chmod 000 "$T/good.msgids"
	check 1 "^dtrace: failed to load msgids: $T/good.msgids: Permission denied" \
		-x msgids="$T/good.msgids" -n 'BEGIN{exit(0)}'
	chmod 644 "$T/good.msgids"
fi
# a good file is used
"$MT" -q -x msgids="$T/good.msgids" -n 'BEGIN{printf("%s\n", mach_msgname(200)); exit(0)}' \
	>"$T/out" 2>"$T/err" || { echo "good file refused: $(cat "$T/err")"; exit 1; }
[ "$(head -n 1 "$T/out")" = ok-reply ] || { echo "output: $(cat "$T/out")"; exit 1; }
exit 0
