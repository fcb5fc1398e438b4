#!/bin/sh
# The session: notices on stderr, exit() status, -o, -q, $1 arguments.
"$MT" -n 'BEGIN { exit(3) }' >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 3 ] || { echo "exit(3): exit $rc"; exit 1; }
grep -q "^dtrace: description 'BEGIN ' matched 1 probe$" "$T/err" ||
	{ echo "notice: $(cat "$T/err")"; exit 1; }
"$MT" -q -n 'BEGIN { exit(0) }' 2>"$T/err" >/dev/null
[ -s "$T/err" ] && { echo "-q printed: $(cat "$T/err")"; exit 1; }
rm -f "$T/o"
"$MT" -q -o "$T/o" -n 'BEGIN { printf("%d\n", 42); exit(0) }' || exit 1
[ "$(head -1 "$T/o")" = 42 ] || { echo "-o: $(cat "$T/o")"; exit 1; }
printf 'BEGIN { printf("%%s %%d\\n", $$1, $2); exit(0); }\n' > "$T/a.d"
[ "$("$MT" -q -s "$T/a.d" foo 7 | head -1)" = "foo 7" ] ||
	{ echo "macro arguments"; exit 1; }
