#!/usr/bin/env bash
# Each layer of the pipeline links on its own, so that a call from a lower
# layer into a later one (the link stage into a target, the consumer into a
# target library) is caught when it is written.  Every object of the
# layer's libraries is linked (--whole-archive) into an empty program with
# only libc: an undefined symbol is a layer reaching outside itself.
#   compiler + link + common (+ msgids, the names the link stage puts in
#   images for mach_msgname()): no target, runtime or consumer
#   consumer + common: no target, runtime or compiler
# The runtime's own boundary (only mt_plat_* hooks) is rt-nmcheck at build.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
L=$BUILD/lib
T=$(mktemp -d /tmp/mt-layers.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo 'int main(void) { return 0; }' > "$T/main.c"
cc -c -o "$T/main.o" "$T/main.c" || { echo "FAIL layers: cannot compile"; exit 1; }

layer() {	# name, libraries...
	local name=$1 lib libs=() und
	shift
	for lib in "$@"; do
		if [ ! -f "$L/$lib" ]; then
			echo "FAIL layer-$name: $L/$lib not built"
			return
		fi
		libs+=("$L/$lib")
	done
	if cc -o "$T/a.out" "$T/main.o" -Wl,--whole-archive "${libs[@]}" \
		-Wl,--no-whole-archive -lm > "$T/err" 2>&1; then
		echo "PASS layer-$name"
	else
		und=$(grep -o "undefined reference to \`[A-Za-z_0-9]*'" "$T/err" |
			sed "s/.*\`//; s/'//" | sort -u | tr '\n' ' ')
		echo "FAIL layer-$name: links outside its layer: ${und:-$(tail -n 2 "$T/err")}"
	fi
}
layer compiler+link libmtcc.a libmtlink.a libmtmsgids.a libmtcommon.a
layer consumer libmtcons.a libmtcommon.a
