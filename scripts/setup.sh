#!/usr/bin/env bash
# Install what the build needs, then fetch the GNU Mach packages into the
# build cache.  Idempotent: does nothing when everything is already there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")

missing=()
while read -r pkg; do
	case "$pkg" in ''|'#'*) continue ;; esac
	[ "$pkg" = npm ] && command -v npm >/dev/null && continue
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing+=("$pkg")
done < "$here/packages.txt"

if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -x "$here/fetch-kernel.sh" ]; then
	"$here/fetch-kernel.sh" --cache "$top/build/kernel"
fi

# Debian's newer kernels (build/kernels/SUITE) and their SMP images
# (build/kernels/SUITE-smp) for the kernel tests: failing soft, as those
# tests SKIP without them.  MACHTRACE_EXTRA_KERNELS lists the suites ("" for
# none).
for suite in ${MACHTRACE_EXTRA_KERNELS-forky sid}; do
	[ -x "$here/fetch-kernel.sh" ] || break
	for variant in up smp; do
		key=$suite
		[ "$variant" = up ] || key=$suite-$variant
		if ! "$here/fetch-kernel.sh" --suite "$suite" --variant "$variant"; then
			if [ -f "$top/build/kernels/$key/VERSION" ]; then
				echo "setup: keeping $key's $(sed -n 1p "$top/build/kernels/$key/VERSION")" >&2
			else
				echo "setup: no $key kernel; the tests that boot it will SKIP" >&2
			fi
		fi
	done
done
