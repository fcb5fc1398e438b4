#!/usr/bin/env bash
# tests/suites/layers.sh fails on a deliberate violation: in a copy of the
# sources and libraries, a compiler file including the consumer's header,
# a tool including the command's, a bench file including by a relative
# path, a folder the layers do not know, a compiler object calling into
# the consumer, and a session object calling into a tool.  The unchanged
# copy passes first, so each failure is the violation's.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
if [ ! -f "$BUILD/lib/libmtcc.a" ] || [ ! -f "$BUILD/lib/libmtcons.a" ]; then
	echo "SKIP layers-violation: $BUILD/lib not built (make all)"
	exit 0
fi
T=$(mktemp -d /tmp/mt-layersv.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/root/tests/suites" "$T/root/build"
for d in */; do
	case "$d" in build/|tests/|debian/|docs/) continue ;; esac
	cp -r "$d" "$T/root/"
done
cp tests/suites/layers.sh "$T/root/tests/suites/"
cp -r "$BUILD/lib" "$T/root/build/"

run() {	# the layers of the copy, into $T/out
	BUILD="$T/root/build" ROOT="$T/root" bash "$T/root/tests/suites/layers.sh" > "$T/out" 2>&1
}
expect() {	# name, the FAIL line's test, a word it must name
	if grep -q "^FAIL $2:.*$3" "$T/out"; then
		echo "PASS layers-violation-$1"
	else
		echo "FAIL layers-violation-$1: layers.sh did not fail $2 on $3: $(grep "$2" "$T/out")"
	fi
}

run
if grep -q '^FAIL' "$T/out"; then
	echo "FAIL layers-violation: the unchanged copy fails: $(grep '^FAIL' "$T/out" | head -n 3)"
	exit 0
fi
echo "PASS layers-violation-clean-copy"

# an upward include: the compiler reaching into the consumer
echo '#include "consumer/impl.h"' >> "$T/root/compiler/lex.c"
echo '#include "cmd/machtrace/cli.h"' >> "$T/root/tools/top/top.c"
echo '#include "../tests/lib/rtimg.h"' >> "$T/root/bench/probe_bench.c"
mkdir "$T/root/newfolder" && echo 'int x;' > "$T/root/newfolder/x.c"
run
expect upward-include layer-includes 'compiler/lex.c: "consumer/impl.h"'
expect tool-includes-cmd layer-includes 'tools/top/top.c: "cmd/machtrace/cli.h"'
expect relative-include layer-includes 'bench/probe_bench.c: "../tests/lib/rtimg.h"'
expect unknown-folder layer-includes 'newfolder/ (no line in USES)'

# an upward call: a compiler object calling a consumer function
fn=$(nm -g --defined-only "$BUILD/lib/libmtcons.a" | awk '$2 == "T" { print $3; exit }')
printf 'void %s(void);\nvoid mt_layers_violation(void);\nvoid mt_layers_violation(void) { %s(); }\n' \
	"$fn" "$fn" > "$T/v.c"
cc -c -o "$T/v.o" "$T/v.c" && ar rs "$T/root/build/lib/libmtcc.a" "$T/v.o" 2>/dev/null
run
expect upward-call layer-compiler+link "$fn"

# a lower layer calling up: a session object calling a tool's entry point
printf 'int tool_top_main(void);\nint mt_layers_violation2(void);\nint mt_layers_violation2(void) { return tool_top_main(); }\n' > "$T/v2.c"
cc -c -o "$T/v2.o" "$T/v2.c" && ar rs "$T/root/build/lib/libmtsession.a" "$T/v2.o" 2>/dev/null
run
expect session-calls-tool layer-session tool_top_main
