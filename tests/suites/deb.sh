#!/usr/bin/env bash
# make deb builds machtrace_VERSION_amd64.deb (here into a scratch DEB_DIR;
# about 20 s: it reuses the build tree); its control data depends on what
# scripts/setup.sh installs, it holds the installed layout, lintian reports
# no error, and dpkg -i into a throwaway root gives a machtrace that runs
# there.
set -u
cd "$(dirname "$0")/../.."
for t in dpkg-buildpackage dh lintian fakeroot; do
	if ! command -v $t >/dev/null; then
		echo "SKIP deb: no $t (scripts/packages.txt; run make setup)"
		exit 0
	fi
done
T=$(mktemp -d /tmp/mt-deb.XXXXXX)
trap 'rm -rf "$T"' EXIT
v=$(cat VERSION)
deb=$T/deb/machtrace_${v}_amd64.deb
if make -s --no-print-directory deb DEB_DIR="$T/deb" >"$T/log" 2>&1 && [ -f "$deb" ]; then
	echo "PASS deb-build"
else
	echo "FAIL deb-build: $deb not built: $(tail -n 3 "$T/log" | tr '\n' ' ')"
	exit 0
fi

ctl=$(dpkg-deb -f "$deb" Package Version Architecture Depends)
miss=
for want in "Package: machtrace" "Version: $v" "Architecture: amd64" qemu-system-x86 libdw1 \
	    libcapstone4 libjansson4 debian-archive-keyring; do
	printf '%s\n' "$ctl" | grep -q "$want" || miss="$miss '$want'"
done
if [ -z "$miss" ] && dpkg-deb -f "$deb" Recommends | grep -q babeltrace2; then
	echo "PASS deb-control"
else
	echo "FAIL deb-control: missing$miss in: $(printf '%s' "$ctl" | tr '\n' ' ')"
fi

files=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
miss=
for f in ./usr/bin/machtrace ./usr/bin/rpcsnoop ./usr/lib/machtrace/live/blob.bin \
	 ./usr/lib/machtrace/boot/shim.elf ./usr/lib/machtrace/guest/machload \
	 ./usr/lib/machtrace/fetch-kernel.sh ./usr/share/man/man1/machtrace.1.gz \
	 ./usr/share/man/man1/rpcsnoop.1.gz ./usr/share/bash-completion/completions/machtrace \
	 ./usr/share/doc/machtrace/copyright; do
	printf '%s\n' "$files" | grep -qx -- "$f" || miss="$miss $f"
done
if [ -z "$miss" ]; then
	echo "PASS deb-files"
else
	echo "FAIL deb-files: not in the package:$miss"
fi

lintian "$deb" >"$T/lintian" 2>&1
if ! grep -q '^E:' "$T/lintian"; then
	echo "PASS deb-lintian"
else
	echo "FAIL deb-lintian: $(grep '^E:' "$T/lintian" | head -n 5 | tr '\n' ' ')"
fi

# dpkg -i into a throwaway root (its dependencies are the host's)
R=$T/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
touch "$R/var/lib/dpkg/status"
if dpkg --root="$R" --force-depends --force-not-root --force-script-chrootless \
	--log=/dev/null -i "$deb" >"$T/dpkg" 2>&1 &&
   [ "$(cd "$T" && env -u MACHTRACE_BUILD "$R/usr/bin/machtrace" -q -n 'BEGIN { printf("%d\n", 6 * 7); exit(0); }' 2>&1)" = 42 ] &&
   [ "$("$R/usr/bin/machtrace" --version)" = "machtrace $v" ]; then
	echo "PASS deb-install"
else
	echo "FAIL deb-install: $(tail -n 3 "$T/dpkg" | tr '\n' ' ')"
fi
