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

# timeout only guards against a hang (how long it takes is measured by make bench).
timeout 300 env MACHTRACE_MIRROR=http://127.0.0.1:9/debian scripts/fetch-kernel.sh --cache "$TMP/k" \
	>"$TMP/out" 2>&1
rc=$?
if [ $rc != 0 ] && [ $rc != 124 ] && grep -q "fetch-kernel: cannot reach the Debian mirror" "$TMP/out" &&
   [ ! -e "$TMP/k/gnumach-dbg" ] && [ -z "$(ls -A "$TMP/k")" ]; then
	pass mach-fetch-no-network
else
	fail mach-fetch-no-network "exit $rc: $(tail -n 1 "$TMP/out")"
fi
