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
# Several -n/-s are one program: each one's "matched N probes" counts its
# own clauses in it, so a -n using an inline of an earlier -s matches,
# and a failing description is named by its own -n (not the first).
printf 'inline int N = 3;\nBEGIN { }\n' > "$T/n.d"
"$MT" -s "$T/n.d" -n 'BEGIN, END /N == 3/ { exit(0) }' >/dev/null 2>"$T/err" ||
	{ echo "inline across -s/-n: $(cat "$T/err")"; exit 1; }
grep -q "^dtrace: script '$T/n.d' matched 1 probe$" "$T/err" &&
	grep -q "^dtrace: description 'BEGIN, END ' matched 2 probes$" "$T/err" ||
	{ echo "match counts: $(cat "$T/err")"; exit 1; }
"$MT" -s "$T/n.d" -n 'nosuchprov:::x /N/ { }' >/dev/null 2>"$T/err" &&
	{ echo "a description matching nothing ran"; exit 1; }
grep -q "^dtrace: invalid probe specifier nosuchprov:::x /N/ { }: .*does not match any probes" "$T/err" ||
	{ echo "failing command: $(cat "$T/err")"; exit 1; }
# With the kernel forced (--mach), or a -n naming a kernel probe, the
# program is compiled once, after the kernel D library: -C runs cpp once,
# so its #warning is printed once.
if "$MT" --mach -e -n 'BEGIN { }' >/dev/null 2>&1 && command -v cpp >/dev/null; then
	printf '#warning mt-compiled-once\nfbt::mach_msg_trap:entry { @ = count(); }\n' > "$T/w.d"
	"$MT" --mach -C -e -s "$T/w.d" 2>"$T/err" || { echo "--mach -C -e: $(cat "$T/err")"; exit 1; }
	[ "$(grep -c mt-compiled-once "$T/err")" = 1 ] ||
		{ echo "--mach: compiled more than once: $(cat "$T/err")"; exit 1; }
	"$MT" -C -e -s "$T/w.d" -n 'fbt::vm_fault:entry { }' 2>"$T/err" ||
		{ echo "-C -e -s -n fbt: $(cat "$T/err")"; exit 1; }
	[ "$(grep -c mt-compiled-once "$T/err")" = 1 ] ||
		{ echo "-n fbt: compiled more than once: $(cat "$T/err")"; exit 1; }
else
	echo "SKIP: no kernel to read (--mach -e) or no cpp"
fi
# A kernel program that fails alone and with the kernel D library: once
# its args[] were typed by the kernel, the library's error is the one
# reported (here psinfo_t's missing member, not "curpsinfo" unknown).
if "$MT" --mach -e -n 'BEGIN { }' >/dev/null 2>&1; then
	"$MT" -e -n 'fbt::vm_fault:entry { trace(args[0]); trace(curpsinfo->pr_nosuch); }' \
		2>"$T/err" && { echo "pr_nosuch compiled"; exit 1; }
	grep -q "pr_nosuch is not a member of psinfo_t" "$T/err" ||
		{ echo "kernel program's error: $(cat "$T/err")"; exit 1; }
else
	echo "SKIP: no kernel to read (--mach -e)"
fi
