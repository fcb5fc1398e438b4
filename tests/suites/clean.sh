#!/usr/bin/env bash
# `make clean` removes every build output and keeps the kernel cache
# (build/kernel, fetched once by scripts/fetch-kernel.sh).  Run on a
# scratch build tree so the real one is untouched.
set -u
cd "$(dirname "$0")/../.."
T=$(mktemp -d /tmp/mt-clean.XXXXXX)
trap 'rm -rf "$T"' EXIT
b=$T/build
mkdir -p "$b/kernel/include" "$b/obj/x" "$b/lib" "$b/bin" "$b/boot/obj" \
	"$b/guest/obj" "$b/live" "$b/tests/unit" "$b/bench"
touch "$b/kernel/VERSION" "$b/kernel/include/h" "$b/boot/shim.elf" "$b/live/blob.bin" \
	"$b/stray"
make -s --no-print-directory clean BUILD="$b" > "$T/out" 2>&1 ||
	echo "FAIL make-clean: exit status $?: $(tr '\n' ' ' < "$T/out")"
left=$(cd "$b" && find . -mindepth 1 | sort | tr '\n' ' ')
if [ "$left" = "./kernel ./kernel/VERSION ./kernel/include ./kernel/include/h " ]; then
	echo "PASS make-clean-keeps-only-kernel"
else
	echo "FAIL make-clean-keeps-only-kernel: left: $left"
fi
