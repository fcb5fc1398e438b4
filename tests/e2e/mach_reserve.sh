#!/usr/bin/env bash
# The shim's reservation: a region right after the kernel image, where
# GNU Mach puts its boot heap, stays untouched through a whole boot (the
# shim fills it with a pattern; the host checks it in the shared guest RAM).
set -u
. "$(dirname "$0")/mach_lib.sh"
need_kernel mach-reserve

out=$("$MT" reserve-check 0x1400000:0x400000 "pages=64" 2>&1)
if [ $? = 0 ] && echo "$out" | grep -q ": 0 of 1048576 words changed"; then
	pass mach-reserve-region-untouched
else
	fail mach-reserve-region-untouched "$out"
fi
