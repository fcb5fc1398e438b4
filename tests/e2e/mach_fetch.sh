#!/usr/bin/env bash
# scripts/fetch-kernel.sh: a no-op on a filled cache, a clear error and no
# partial kernel without network.
set -u
. "$(dirname "$0")/mach_lib.sh"

if [ -f "$BUILD/kernel/VERSION" ] && out=$(scripts/fetch-kernel.sh --cache "$BUILD/kernel" 2>&1) &&
   [ -z "$out" ]; then
	pass mach-fetch-noop-when-cached
else
	fail mach-fetch-noop-when-cached "output or failure on a filled cache: $out"
fi

start=$(date +%s)
MACHTRACE_MIRROR=http://127.0.0.1:9/debian scripts/fetch-kernel.sh --cache "$TMP/k" >"$TMP/out" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
if [ $rc != 0 ] && grep -q "fetch-kernel: cannot reach the Debian mirror" "$TMP/out" &&
   [ ! -e "$TMP/k/gnumach-dbg" ] && [ -z "$(ls -A "$TMP/k")" ] && [ $took -lt 60 ]; then
	pass mach-fetch-no-network
else
	fail mach-fetch-no-network "exit $rc after ${took}s: $(tail -n 1 "$TMP/out")"
fi
