#!/usr/bin/env bash
# Build a GNU Mach kernel from source with the host's gcc and the cached
# trixie MIG (scripts/fetch-kernel.sh), for tracing a kernel one built.
#
#   scripts/kernel-src.sh [--dir SRC | --tar TARBALL] [--patch FILE]
#                         [--out DIR] [--mig DIR]
#
#   --dir SRC      a GNU Mach checkout of one's own (autoreconf'd in place
#                  when it has no configure); built out of tree in OUT/obj
#   --tar TARBALL  a `git archive --prefix=gnumach/` tarball, extracted
#                  into OUT/src (default: $GNUMACH_SRC_TAR, else
#                  ../shared/gnumach/gnumach-src.tar.xz)
#   --patch FILE   applied (patch -p1) to the extracted tree before building
#   --out DIR      where the kernel goes: OUT/gnumach (default build/kernel-src)
#   --mig DIR      trixie's MIG (default build/kernel/mig)
#
# The configuration is one Debian does not use (-Os, no kernel debugger),
# so that what is traced on it depends on the kernel's DWARF and symbols,
# not on Debian's build.  The kernel's code may use <sys/sdt.h>'s static
# probes (DTRACE_PROBEn): the build sees that header alone (systemtap-sdt-
# dev's, copied to OUT/include/sys), after the kernel's own headers.  A tarball build is done once: OUT/INPUTS records
# its inputs (tarball, patch, configuration, MIG, this script) and a second
# run with the same inputs does nothing.  A --dir build always runs make,
# which rebuilds what changed.
# Exit status: 0 built (or up to date), 1 the build failed, 3 a
# prerequisite is missing (the message names it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")

CFG_CFLAGS='-Os -g'
CFG_ARGS=(--host=x86_64-gnu --disable-kdb)

die() { echo "kernel-src: $*" >&2; exit 1; }
missing() { echo "kernel-src: missing $*" >&2; exit 3; }

dir= tar=${GNUMACH_SRC_TAR:-$top/../shared/gnumach/gnumach-src.tar.xz} patch= out=$top/build/kernel-src
mig=$top/build/kernel/mig
while [ $# -gt 0 ]; do
	case "$1" in
	--dir) dir=${2:?--dir needs a directory}; shift 2 ;;
	--tar) tar=${2:?--tar needs a file}; shift 2 ;;
	--patch) patch=${2:?--patch needs a file}; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--mig) mig=${2:?--mig needs a directory}; shift 2 ;;
	-h|--help) sed -n '2,26p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done

for tool in gcc cpp ld make autoreconf automake makeinfo patch; do
	command -v "$tool" >/dev/null ||
		missing "$tool (make setup installs scripts/packages.txt)"
done
sdt_h=$(printf '#include <sys/sdt.h>\n' | cpp -M - 2>/dev/null | grep -o '/[^ ]*/sys/sdt\.h' | head -n 1) ||
	missing "<sys/sdt.h> (systemtap-sdt-dev)"
[ -x "$mig/x86_64-gnu-mig" ] && [ -x "$mig/x86_64-gnu-migcom" ] ||
	missing "trixie's MIG in $mig (make setup fetches it)"
if [ -n "$dir" ]; then
	[ -d "$dir" ] || die "--dir $dir: not a directory"
	[ -z "$patch" ] || die "--patch goes with a tarball, not with --dir"
	src=$(cd "$dir" && pwd)
else
	[ -f "$tar" ] || missing "GNU Mach's source tarball $tar"
fi
[ -z "$patch" ] || [ -f "$patch" ] || die "--patch $patch: no such file"
mkdir -p "$out"
out=$(cd "$out" && pwd)
mig=$(cd "$mig" && pwd)
[ -n "$dir" ] || src=$out/src/gnumach

# What the built kernel depends on, besides a --dir tree's own files.
inputs() {
	if [ -n "$dir" ]; then echo "dir $src"; else sha256sum <"$tar"; fi
	[ -z "$patch" ] || sha256sum <"$patch"
	echo "CFLAGS=$CFG_CFLAGS ${CFG_ARGS[*]}"
	cat "$sdt_h" "$(dirname "$sdt_h")/sdt-config.h" | sha256sum
	cat "$mig/x86_64-gnu-mig" "$mig/x86_64-gnu-migcom" "$0" | sha256sum
}
want=$(inputs)
if [ -z "$dir" ] && [ -s "$out/gnumach" ] && [ "$(cat "$out/INPUTS" 2>/dev/null)" = "$want" ]; then
	echo "kernel-src: $out/gnumach is up to date"
	exit 0
fi

log=$out/build.log
: >"$log"
step() {	# what, command...: the command's output goes to the log
	local what=$1
	shift
	"$@" >>"$log" 2>&1 || die "$what failed (the last lines of $log):
$(tail -n 15 "$log")"
}

if [ -z "$dir" ]; then
	rm -rf "$out/src" "$out/obj" "$out/INPUTS"
	mkdir -p "$out/src"
	step "extracting $tar" tar -xJf "$tar" -C "$out/src"
	[ -d "$src" ] || die "$tar has no gnumach/ directory"
	[ -z "$patch" ] || step "patch $patch" patch -d "$src" -p1 -i "$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")"
fi
[ -x "$src/configure" ] || (cd "$src" && step "autoreconf -fi in $src" autoreconf -fi)
mkdir -p "$out/include/sys"
cp "$sdt_h" "$(dirname "$sdt_h")/sdt-config.h" "$out/include/sys/"
if [ ! -f "$out/obj/Makefile" ] || [ "$(cat "$out/INPUTS" 2>/dev/null)" != "$want" ]; then
	rm -rf "$out/obj"
	mkdir -p "$out/obj"
	(cd "$out/obj" && MIGDIR=$mig step configure "$src/configure" "${CFG_ARGS[@]}" \
		CC=gcc LD=ld MIG="$mig/x86_64-gnu-mig" CFLAGS="$CFG_CFLAGS" \
		CPPFLAGS="-idirafter $out/include")
fi
jobs=$(nproc)
(cd "$out/obj" && MIGDIR=$mig step "make gnumach" make -j"$jobs" gnumach)
cp "$out/obj/gnumach" "$out/gnumach.new"
mv "$out/gnumach.new" "$out/gnumach"
echo "$want" >"$out/INPUTS"
echo "kernel-src: built $out/gnumach ($CFG_CFLAGS, no kernel debugger)"
