#!/usr/bin/env bash
# A function used only in its own file is static.  Every global function
# of the built objects (host, hosted runtime, kernel blob) must either be
# referenced from another object (unit tests, bench and fuzz harnesses
# included), be public API declared in include/machtrace/, or be called
# from assembly (defined in a .S file or named in one).  The guest
# programs (MIG stubs) are left out.  A global that
# nothing else calls reads as an interface it is not, and the compiler
# cannot warn when it becomes dead.  A shared one is declared in a header,
# not by a prototype repeated in each .c file that calls it.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
T=$(mktemp -d /tmp/mt-statics.XXXXXX)
trap 'rm -rf "$T"' EXIT
objs=$(find "$BUILD/obj" "$BUILD/boot/obj" "$BUILD/tests" "$BUILD/guest" \
	"$BUILD/bench" "$BUILD/fuzz" -name '*.o' 2>/dev/null)
if [ -z "$objs" ]; then
	echo "FAIL statics: no objects under $BUILD (build first)"
	exit 1
fi
for o in $objs; do
	nm --defined-only -g "$o" 2>/dev/null | awk -v o="$o" '$2 == "T" { print $3, o }'
done | sort -u > "$T/defs"
for o in $objs; do nm -u "$o" 2>/dev/null | awk '{ print $2 }'; done | sort -u > "$T/refs"
HDRS="include compiler common link consumer cmd targets runtime msgids output jit session tools"
bad=
while read -r s o; do
	# the guest programs are Mach user code around MIG's generated stubs
	case "$o" in */tests/*|*/bench/*|*/fuzz/*|*/guest/*|*.S.o) continue ;; esac
	[ "$s" = main ] && continue
	if grep -qx "$s" "$T/refs"; then
		# shared: its prototype is in a header, not repeated ad hoc
		grep -rqw --include='*.h' "$s" $HDRS ||
			grep -rqw --include='*.S' "$s" runtime targets ||
			bad="$bad $s(${o#$BUILD/obj/}: no header declares it)"
		continue
	fi
	grep -rqw --include='*.h' "$s" include/machtrace && continue
	grep -rqw --include='*.S' "$s" runtime targets && continue
	bad="$bad $s(${o#$BUILD/obj/}: no other file uses it)"
done < "$T/defs"
if [ -n "$bad" ]; then
	echo "FAIL statics:$bad"
	exit 1
fi
echo "PASS statics ($(wc -l < "$T/defs") global functions)"
