#!/bin/sh
# Inputs found by fuzzing the compiler (issue 7, items 19-21): each must be
# refused with a D error and exit 1, never a signal.  The sanitizer pass of
# `make check` runs this too, where a read past a buffer is a failure.
check() {	# tag args...
	tag=$1; shift
	"$MT" -xerrtags -e "$@" >/dev/null 2>"$T/err"; rc=$?
	[ $rc -eq 1 ] || { echo "$*: exit $rc: $(head -c 200 "$T/err")"; exit 1; }
	grep -q "\[$tag\]" "$T/err" || { echo "$*: $(head -c 200 "$T/err")"; exit 1; }
}
# 19: a backslash right before the end of the text, in a string
printf '"\\' >"$T/bs.d"
check D_SYNTAX -s "$T/bs.d"
printf 'BEGIN { x = "abc\\' >"$T/bs2.d"
check D_SYNTAX -s "$T/bs2.d"
# 20: a declarator without a name
check D_SYNTAX -n 'typedef()'
check D_SYNTAX -n 'typedef int();'
check D_SYNTAX -n 'int ();'
check D_SYNTAX -n 'translator int < int () > { };'
# 21: 100,000 levels of nesting
deep() {	# prefix suffix
	awk -v p="$1" -v s="$2" 'BEGIN { printf "BEGIN { x = ";
		for (i = 0; i < 100000; i++) printf "%s", p; printf "1";
		for (i = 0; i < 100000; i++) printf "%s", s; print "; }" }' >"$T/deep.d"
}
for p in '(' '!' '-' '(int)' '~' '*' 'sizeof ' '++'; do
	s=; [ "$p" = '(' ] && s=')'
	deep "$p" "$s"
	check D_SYNTAX -s "$T/deep.d"
done
awk 'BEGIN { printf "BEGIN { x = 1"; for (i = 0; i < 100000; i++) printf "+1";
	print "; }" }' >"$T/deep.d"
check D_SYNTAX -s "$T/deep.d"
awk 'BEGIN { printf "BEGIN { "; for (i = 0; i < 100000; i++) printf "x = ";
	print "1; }" }' >"$T/deep.d"
check D_SYNTAX -s "$T/deep.d"
awk 'BEGIN { printf "int "; for (i = 0; i < 100000; i++) printf "(";
	printf "x"; for (i = 0; i < 100000; i++) printf ")"; print ";" }' >"$T/deep.d"
check D_SYNTAX -s "$T/deep.d"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "struct s%d { ", i;
	printf "int x;"; for (i = 0; i < 100000; i++) printf "} m%d;", i; print "" }' >"$T/deep.d"
check D_SYNTAX -s "$T/deep.d"
# a chain of 5000 inlines expands by recursion in code generation
awk 'BEGIN { print "inline int a0 = timestamp;";
	for (i = 1; i < 5000; i++) printf "inline int a%d = a%d + 1;\n", i, i - 1;
	print "BEGIN { trace(a4999); }" }' >"$T/deep.d"
check D_SYNTAX -s "$T/deep.d"
# inlines whose expansion doubles at each level: bounded code, not memory
awk 'BEGIN { print "inline int a0 = timestamp;";
	for (i = 1; i < 40; i++) printf "inline int a%d = a%d ? a%d : 1;\n", i, i - 1, i - 1;
	print "BEGIN { trace(a39); }" }' >"$T/deep.d"
check D_DIF_OFLOW -s "$T/deep.d"
# below the bound, nesting compiles and runs
awk 'BEGIN { printf "BEGIN { trace("; for (i = 0; i < 900; i++) printf "(";
	printf "-1"; for (i = 0; i < 900; i++) printf ")"; print "); exit(0); }" }' >"$T/ok.d"
out=$("$MT" -q -s "$T/ok.d" 2>&1) || { echo "900 parentheses: $out"; exit 1; }
[ "$out" = "-1" ] || { echo "900 parentheses: '$out'"; exit 1; }
exit 0
