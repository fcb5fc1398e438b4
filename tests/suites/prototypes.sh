#!/usr/bin/env bash
# A function that is neither static nor declared in a header is an error in
# every build of the project's own code (host, freestanding runtime and the
# GNU Mach blob, shim, guest programs): -Werror=missing-prototypes.  A
# file-local function left non-static, or an extern one without its
# header's prototype, then fails the build where it is written instead of
# waiting for a review.  This compiles such a function with each flag set
# the makefiles give and expects the compiler to refuse it.
set -u
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d /tmp/mt-protos.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo 'int mt_no_prototype(void) { return 0; }' > "$T/t.c"
fail=0
for var in HOST_CFLAGS RT_FREESTANDING_CFLAGS RT_KERNEL_CFLAGS SHIM_CFLAGS \
	   GUEST_CFLAGS; do
	flags=$(make -s --no-print-directory --eval "mt-print-flags: ; @echo \$($var)" \
		mt-print-flags 2>/dev/null)
	if [ -z "$flags" ]; then
		echo "FAIL prototypes-$var: not defined by the makefiles"
		fail=1
		continue
	fi
	# shellcheck disable=SC2086
	if cc $flags -c "$T/t.c" -o "$T/t.o" 2>"$T/err"; then
		echo "FAIL prototypes-$var: a function without a prototype compiles"
		fail=1
	elif ! grep -q 'missing-prototypes' "$T/err"; then
		echo "FAIL prototypes-$var: refused for another reason: $(head -c 200 "$T/err")"
		fail=1
	else
		echo "PASS prototypes-$var"
	fi
done
exit $fail
