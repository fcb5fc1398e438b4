#!/bin/sh
# Every argument after "--" is a macro argument, even one that looks like
# an option: none of them may crash the command (-n and -s alike).
run() {	# expected-rc expected-stdout args...
	want=$1 out=$2; shift 2
	"$MT" "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq "$want" ] || { echo "$*: exit $rc, not $want: $(cat "$T/err")"; exit 1; }
	[ "$(cat "$T/out")" = "$out" ] || { echo "$*: printed '$(cat "$T/out")', not '$out'"; exit 1; }
}
run 0 '-e -e' -qn 'BEGIN { printf("%s %s\n", $$1, $$2); exit(0); }' -- -e -e
run 0 '-q -x 3' -qn 'BEGIN { printf("%s %s %d\n", $$1, $$2, $3); exit(0); }' -- -q -x 3
printf 'BEGIN { printf("%%s|%%s\\n", $$1, $$2); exit(0); }\n' >"$T/f.d"
run 0 '-e|-e' -q -s "$T/f.d" -- -e -e
# dtrace's own rule stands: an argument the program does not use is an error
run 1 '' -n 'BEGIN { exit(0); }' -- -e -e
grep -q "extraneous argument '-e'" "$T/err" || { echo "no extraneous-argument error: $(cat "$T/err")"; exit 1; }
