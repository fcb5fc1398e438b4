#!/usr/bin/env bash
# The layers: which folder may use which.  Two checks, one PASS/FAIL line
# each, so that a lower layer reaching up into a later one (the link stage
# into a target, the consumer into a target library) is caught when it is
# written.
#
# Includes: a source file may include its own folder's headers, the
# contracts in include/machtrace/, and the folders its line of USES below
# names; a folder not in USES fails (a new folder gets a line), and so does
# any include by a relative path ("../x.h").
#
# Calls: every object of a layer's libraries is linked (--whole-archive)
# into an empty program with only libc and the system libraries: an
# undefined symbol is a layer calling outside itself.  The whole program
# links in MT_LINK_ORDER (Makefile) without --start-group, which catches a
# call between layers that are linked together here.  The runtime's own
# boundary (only mt_plat_* hooks) is rt-nmcheck at build.
#
# ROOT (default: this tree) and BUILD (default: ROOT/build) may point at a
# copy: tests/suites/layers-violation.sh checks that a violation fails.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
BUILD=${BUILD:-build}
L=$BUILD/lib

# folder: the folders it may include besides itself and include/
declare -A USES=(
	[common]=""
	[msgids]="common"
	[jit]="common"
	[runtime]=""
	[compiler]="common"
	[link]="common msgids"
	[consumer]="common"
	[output]="common consumer"
	[targets]="common msgids jit runtime"
	[session]="common msgids compiler link consumer output targets runtime jit"
	[tools]="common msgids compiler link consumer output targets runtime jit session"
	[cmd]="common msgids compiler link consumer output targets runtime jit session tools"
	[bench]="common msgids compiler link consumer output targets runtime jit tests"
)

includes() {
	local bad="" dir f inc top
	for dir in $(find . -mindepth 2 \( -name '*.c' -o -name '*.h' \) \
			-not -path './build/*' -not -path './tests/*' -not -path './include/*' \
			-not -path './.*' | cut -d/ -f2 | sort -u); do
		[ -d "$dir" ] || continue
		if [ -z "${USES[$dir]+set}" ]; then
			bad+=" $dir/ (no line in USES)"
			continue
		fi
		while IFS=: read -r f inc; do
			inc=${inc#*\"}
			inc=${inc%%\"*}
			top=${inc%%/*}
			case "$inc" in
			../*|./*) bad+=" $f: \"$inc\" (relative)"; continue ;;
			*/*) ;;
			*) continue ;;
			esac
			[ "$top" = machtrace ] || [ "$top" = "$dir" ] && continue
			[ -d "$top" ] || continue
			case " ${USES[$dir]} " in
			*" $top "*) ;;
			*) bad+=" $f: \"$inc\"" ;;
			esac
		done < <(grep -rHE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
				--include='*.c' --include='*.h' --include='*.S' "$dir" |
			 sed -E 's/^([^:]*):[^"]*/\1:/')
	done
	if [ -z "$bad" ]; then
		echo "PASS layer-includes"
	else
		echo "FAIL layer-includes: includes outside their layer:$bad"
	fi
}

T=$(mktemp -d /tmp/mt-layers.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo 'int main(void) { return 0; }' > "$T/main.c"
cc -c -o "$T/main.o" "$T/main.c" || { echo "FAIL layers: cannot compile"; exit 1; }

layer() {	# name, libraries... (-lNAME: a system library; -ljansson
		# with libmtcommon.a: its JSON reader, common/jsonread.c)
	local name=$1 lib libs=() sys=() und
	shift
	for lib in "$@"; do
		case "$lib" in
		-l*) sys+=("$lib"); continue ;;
		esac
		if [ ! -f "$L/$lib" ]; then
			echo "FAIL layer-$name: $L/$lib not built"
			return
		fi
		libs+=("$L/$lib")
	done
	if cc -o "$T/a.out" "$T/main.o" -Wl,--whole-archive "${libs[@]}" \
		-Wl,--no-whole-archive "${sys[@]}" -lm > "$T/err" 2>&1; then
		echo "PASS layer-$name"
	else
		und=$(grep -o "undefined reference to \`[A-Za-z_0-9]*'" "$T/err" |
			sed "s/.*\`//; s/'//" | sort -u | tr '\n' ' ')
		echo "FAIL layer-$name: links outside its layer: ${und:-$(tail -n 2 "$T/err")}"
	fi
}

# Side doors: commands, tools and the session ask a target through its ops
# (program.h struct mt_target_ops, and struct mt_target_kind for what is
# asked before a target exists: live.h's mt_mach_kind), never the kernel
# target's own mt_live_* or mt_mach_target_* functions.
sidedoor() {
	local bad="" sym f dir
	for dir in cmd tools session; do
		for f in $(find "$BUILD/obj/$dir" -name '*.o' 2>/dev/null); do
			for sym in $(nm -u "$f" | awk '{ print $2 }' |
					grep -E '^(mt_live_|mt_mach_target_)'); do
				bad+=" ${f#"$BUILD"/obj/}: $sym"
			done
		done
	done
	if [ -z "$bad" ]; then
		echo "PASS layer-sidedoor"
	else
		echo "FAIL layer-sidedoor: target functions called outside its ops:$bad"
	fi
}

includes
sidedoor
layer common libmtcommon.a -ljansson
layer msgids libmtmsgids.a libmtcommon.a -ljansson
layer jit libmtjit.a libmtcommon.a -ljansson -lcapstone
# the compiler and the link stage (+ msgids, the names the link stage puts
# in images for mach_msgname()): no target, runtime or consumer
layer compiler+link libmtcc.a libmtlink.a libmtmsgids.a libmtcommon.a -ljansson
layer consumer libmtcons.a libmtcommon.a -ljansson
layer output libmtreport.a libmtout.a libmtcons.a libmtcommon.a -ljansson
# the hosted runtime and the hooks it calls: nothing else
layer runtime libmtrt.a libmtplat.a
# the session: what it runs (compiler, link stage, targets, consumer), no
# command, tool or output
layer session libmtsession.a libmtcc.a libmtlink.a libmtcons.a libmtlive.a \
	libmtvm.a libmttarget.a libmttargets.a libmtlocal.a libmtrt.a libmtplat.a \
	libmtjit.a libmtmsgids.a libmtcommon.a \
	-ljansson -ldw -lelf -lcapstone -lext2fs -lcom_err -lz
# the tools (tools/<name>/): the session and what it runs, the output
# (export, report, stats), no command
layer tools libmttools.a libmtsession.a libmtreport.a libmtout.a libmtcc.a \
	libmtlink.a libmtcons.a libmtlive.a libmtvm.a libmttarget.a libmttargets.a \
	libmtlocal.a libmtrt.a libmtplat.a libmtjit.a libmtmsgids.a libmtcommon.a \
	-ljansson -ldw -lelf -lcapstone -lext2fs -lcom_err -lz
# the targets: no compiler, link stage, consumer or command
layer targets libmtlive.a libmtvm.a libmttarget.a libmttargets.a libmtlocal.a \
	libmtrt.a libmtplat.a libmtjit.a libmtmsgids.a libmtcommon.a \
	-ljansson -ldw -lelf -lcapstone -lext2fs -lcom_err -lz
