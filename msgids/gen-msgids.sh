#!/usr/bin/env bash
# Writes one rpctrace-format msgids file per MIG subsystem, as the Hurd's and
# GNU Mach's `%.msgids: %.defs` rules do (cpp | migcom -n -list).
#
#   msgids/gen-msgids.sh MIGCOM OUTDIR INCLUDE-DIR -- [PROJECT.defs...]
#
# Every .defs under INCLUDE-DIR except the type-only *_types.defs (they
# define no subsystem) and device_request.defs (the asynchronous client
# view of device.defs: the same ids, which the kernel serves and names as
# device.defs routines), then the project's own, with INCLUDE-DIR on the
# include path.  A .defs MIG rejects is an error.
set -euo pipefail
migcom=$1 out=$2 inc=$3
shift 3
[ "${1:-}" = -- ] && shift
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{ find "$inc" -name '*.defs' ! -name '*_types.defs' ! -name device_request.defs | sort; printf '%s\n' "$@"; } |
while read -r defs; do
	[ -n "$defs" ] || continue
	name=$(basename "$defs" .defs)
	if ! ${CC:-cc} -E -x c -ansi -I"$inc" "$defs" | "$migcom" -n -list "$tmp/$name.msgids" >"$tmp/log" 2>&1; then
		cat "$tmp/log" >&2
		echo "gen-msgids: MIG failed on $defs" >&2
		exit 1
	fi
	mv "$tmp/$name.msgids" "$out/$name.msgids"
done
