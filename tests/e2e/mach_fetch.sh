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
   [ ! -e "$TMP/k/gnumach-dbg" ] && [ -z "$(ls -A "$TMP/k" 2>/dev/null)" ]; then
	pass mach-fetch-no-network
else
	fail mach-fetch-no-network "exit $rc: $(tail -n 1 "$TMP/out")"
fi

# A point release moved trixie on: the tested version is gone from the
# index.  A fake apt (on PATH) serves an index without it; the script
# falls back to the newest version there, says so on stderr and in
# CACHE/VERSION, and still checks each .deb against the index's SHA256.
fake=$TMP/fake
mkdir -p "$fake/bin" "$fake/debs"
mkdeb() {	# package, file inside, content
	local root=$fake/root-$1
	mkdir -p "$root/DEBIAN" "$(dirname "$root/$2")"
	printf 'Package: %s\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' \
		"$1" >"$root/DEBIAN/control"
	printf '%s' "$3" >"$root/$2.raw"
	gzip -c "$root/$2.raw" >"$root/$2" && rm "$root/$2.raw"
	dpkg-deb --root-owner-group -b "$root" "$fake/debs/$1.deb" >/dev/null
}
mkdeb gnumach-image-1.8-amd64-up-dbg boot/gnumach-1.8-amd64-up-dbg.gz "$(printf '\177ELF fake kernel')"
mkdeb gnumach-image-1.8-amd64-smp-dbg boot/gnumach-1.8-amd64-smp-dbg.gz "$(printf '\177ELF fake smp kernel')"
mkdeb gnumach-dev usr/include/mach/fake.h.gz "fake header"
# trixie's MIG is fetched with the kernel (CACHE/mig): its programs as is
root=$fake/root-mig
mkdir -p "$root/DEBIAN" "$root/usr/lib/mig" "$root/usr/bin"
printf 'Package: mig-x86-64-gnu\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' \
	>"$root/DEBIAN/control"
printf '#!/bin/sh\necho fake migcom\n' >"$root/usr/lib/mig/x86_64-gnu-migcom"
printf '#!/bin/sh\n' >"$root/usr/bin/x86_64-gnu-mig"
chmod +x "$root/usr/lib/mig/x86_64-gnu-migcom" "$root/usr/bin/x86_64-gnu-mig"
dpkg-deb --root-owner-group -b "$root" "$fake/debs/mig-x86-64-gnu.deb" >/dev/null
cat >"$fake/bin/apt-get" <<'FAKE'
#!/bin/sh
# apt-get update: an index in Dir::State::Lists; download P=V: P's .deb here.
lists=
while [ $# -gt 0 ]; do
	case "$1" in
	-o) case "$2" in Dir::State::Lists=*) lists=${2#*=} ;; esac; shift 2 ;;
	-*) shift ;;
	update) touch "$lists/fake_trixie_main_binary-amd64_Packages"; exit 0 ;;
	download) shift
		for s in "$@"; do
			v=$(echo "${s#*=}" | sed 's/:/%3a/')
			cp "$FAKE_DEBS/${s%%=*}.deb" "./${s%%=*}_${v}_amd64.deb" || exit 100
		done; exit 0 ;;
	*) shift ;;
	esac
done
FAKE
cat >"$fake/bin/apt-cache" <<'FAKE'
#!/bin/sh
# madison P: the fake index's versions; show P=V: its SHA256 line.
while [ $# -gt 0 ]; do
	case "$1" in
	-o) shift 2 ;;
	madison) [ "$2" = "${FAKE_NOPKG:-}" ] && exit 0
		for v in $FAKE_VERSIONS; do echo " $2 | $v | fake trixie/main"; done; exit 0 ;;
	show) p=${2%%=*}; echo "Package: $p"
		echo "SHA256: ${FAKE_SUM:-$(sha256sum "$FAKE_DEBS/$p.deb" | cut -d' ' -f1)}"; exit 0 ;;
	*) shift ;;
	esac
done
FAKE
chmod +x "$fake/bin/apt-get" "$fake/bin/apt-cache"
fetch_fake() {	# cache, env assignments...
	local c=$1
	shift
	env PATH="$fake/bin:$PATH" FAKE_DEBS="$fake/debs" MACHTRACE_MIRROR=http://fake/debian \
		FAKE_VERSIONS="2:1.8+git20250101-1 2:1.8+git20251111-2" "$@" \
		scripts/fetch-kernel.sh --cache "$c" >"$TMP/out" 2>"$TMP/err"
}
fetch_fake "$TMP/kf"
rc=$?
if [ $rc = 0 ] && grep -q "fetch-kernel: 2:1.8+git20250702-1 is not in trixie; using the newest there, 2:1.8+git20251111-2 (untested" "$TMP/err" &&
   [ "$(cat "$TMP/kf/VERSION")" = "$(printf '2:1.8+git20251111-2\nfallback-from: 2:1.8+git20250702-1')" ] &&
   grep -q "fake kernel" "$TMP/kf/gnumach-dbg" && [ -f "$TMP/kf/include/mach/fake.h.gz" ] &&
   [ -x "$TMP/kf/mig/x86_64-gnu-migcom" ]; then
	pass mach-fetch-falls-back-to-newest
else
	fail mach-fetch-falls-back-to-newest "exit $rc: $(cat "$TMP/err") / VERSION: $(cat "$TMP/kf/VERSION" 2>&1)"
fi
# the fallback is kept: no second fetch for the same wanted version
if fetch_fake "$TMP/kf" FAKE_VERSIONS= && [ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ]; then
	pass mach-fetch-fallback-cached
else
	fail mach-fetch-fallback-cached "$(cat "$TMP/out" "$TMP/err")"
fi
# the wanted version, when the index has it, is the one used
fetch_fake "$TMP/kw" MACHTRACE_KERNEL_VERSION=2:1.8+git20250101-1
if [ $? = 0 ] && grep -q "using 2:1.8+git20250101-1 (as asked)" "$TMP/err" &&
   [ "$(cat "$TMP/kw/VERSION")" = "2:1.8+git20250101-1" ]; then
	pass mach-fetch-prefers-wanted
else
	fail mach-fetch-prefers-wanted "$(cat "$TMP/err")"
fi
# a .deb that does not match the signed index is refused, nothing cached
fetch_fake "$TMP/ks" FAKE_SUM=0000000000000000000000000000000000000000000000000000000000000000
if [ $? != 0 ] && grep -q "SHA-256 mismatch" "$TMP/err" && [ ! -e "$TMP/ks/gnumach-dbg" ]; then
	pass mach-fetch-index-sha256
else
	fail mach-fetch-index-sha256 "$(cat "$TMP/err")"
fi

# Extra kernels by suite: the suite's newest version into KERNELS/SUITE-V
# (no epoch) with the symlink KERNELS/SUITE; an exact version, when the
# index lacks it, is an error naming what the suite has, nothing cached.
fetch_suite() {	# args...
	env PATH="$fake/bin:$PATH" FAKE_DEBS="$fake/debs" MACHTRACE_MIRROR=http://fake/debian \
		FAKE_VERSIONS="${FAKE_VERSIONS-2:1.8+git20250101-1 2:1.8+git20251111-2}" \
		scripts/fetch-kernel.sh --kernels "$TMP/kernels" "$@" >"$TMP/out" 2>"$TMP/err"
}
fetch_suite --suite sid
rc=$?
if [ $rc = 0 ] && grep -q "using 2:1.8+git20251111-2 (the newest in sid)" "$TMP/err" &&
   [ "$(readlink "$TMP/kernels/sid")" = "sid-1.8+git20251111-2" ] &&
   [ "$(cat "$TMP/kernels/sid/VERSION")" = "2:1.8+git20251111-2" ] &&
   grep -q "fake kernel" "$TMP/kernels/sid/gnumach-dbg"; then
	pass mach-fetch-suite-newest
else
	fail mach-fetch-suite-newest "exit $rc: $(cat "$TMP/err") / $(ls -l "$TMP/kernels" 2>&1)"
fi
if FAKE_VERSIONS= fetch_suite --suite sid --version 2:1.8+git20251111-2 && [ ! -s "$TMP/out" ] &&
   [ ! -s "$TMP/err" ]; then
	pass mach-fetch-suite-version-cached
else
	fail mach-fetch-suite-version-cached "$(cat "$TMP/out" "$TMP/err")"
fi
fetch_suite --suite forky --version 2:1.8+git20250101-1
if [ $? = 0 ] && [ "$(readlink "$TMP/kernels/forky")" = "forky-1.8+git20250101-1" ] &&
   [ "$(cat "$TMP/kernels/forky/VERSION")" = "2:1.8+git20250101-1" ]; then
	pass mach-fetch-suite-exact-version
else
	fail mach-fetch-suite-exact-version "$(cat "$TMP/err")"
fi
fetch_suite --suite forky --version 2:1.8+git20990101-1
if [ $? != 0 ] && grep -q "forky has no version 2:1.8+git20990101-1 .*(it has: 2:1.8+git20250101-1 2:1.8+git20251111-2)" "$TMP/err" &&
   [ ! -e "$TMP/kernels/forky-1.8+git20990101-1" ]; then
	pass mach-fetch-suite-missing-version
else
	fail mach-fetch-suite-missing-version "$(cat "$TMP/err")"
fi

# --variant smp: the suite's SMP image beside its UP one, in KERNELS/SUITE-smp;
# a suite without the SMP package is an error naming it, nothing cached.
fetch_suite --suite sid --variant smp
rc=$?
if [ $rc = 0 ] && [ "$(readlink "$TMP/kernels/sid-smp")" = "sid-smp-1.8+git20251111-2" ] &&
   [ "$(readlink "$TMP/kernels/sid")" = "sid-1.8+git20251111-2" ] &&
   grep -q "fake smp kernel" "$TMP/kernels/sid-smp/gnumach-dbg" &&
   grep -q "fetching gnumach-image-1.8-amd64-smp-dbg" "$TMP/out"; then
	pass mach-fetch-suite-smp
else
	fail mach-fetch-suite-smp "exit $rc: $(cat "$TMP/err") / $(ls -l "$TMP/kernels" 2>&1)"
fi
FAKE_NOPKG=gnumach-image-1.8-amd64-smp-dbg fetch_suite --suite forky --variant smp
rc=$?
if [ $rc != 0 ] && grep -q "forky has no package gnumach-image-1.8-amd64-smp-dbg" "$TMP/err" &&
   [ ! -e "$TMP/kernels/forky-smp" ]; then
	pass mach-fetch-suite-smp-missing
else
	fail mach-fetch-suite-smp-missing "exit $rc: $(cat "$TMP/err")"
fi

# machtrace kernel fetch runs the script with its options; kernel list
# shows the cache's kernels with their versions
env PATH="$fake/bin:$PATH" FAKE_DEBS="$fake/debs" MACHTRACE_MIRROR=http://fake/debian \
	FAKE_VERSIONS="2:1.8+git20250101-1 2:1.8+git20251111-2" \
	"$BUILD/bin/machtrace" kernel fetch --suite testing --kernels "$TMP/kernels" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc = 0 ] && [ "$(readlink "$TMP/kernels/testing")" = "testing-1.8+git20251111-2" ] &&
   grep -q "using 2:1.8+git20251111-2 (the newest in testing)" "$TMP/err"; then
	pass mach-fetch-cli
else
	fail mach-fetch-cli "exit $rc: $(cat "$TMP/err")"
fi
"$BUILD/bin/machtrace" kernel bogus >/dev/null 2>"$TMP/err"
rc=$?
if [ $rc = 2 ] && grep -q "usage: machtrace kernel fetch" "$TMP/err"; then
	pass mach-fetch-cli-usage
else
	fail mach-fetch-cli-usage "exit $rc: $(cat "$TMP/err")"
fi
if [ -f "$BUILD/kernel/VERSION" ] && "$BUILD/bin/machtrace" kernel list >"$TMP/out" 2>&1 &&
   grep -qxF "$(printf '%-24s %s' "$(sed -n 1p "$BUILD/kernel/VERSION")" "$(cd "$BUILD" && pwd)/kernel/gnumach-dbg")" "$TMP/out"; then
	pass mach-kernel-list
else
	fail mach-kernel-list "$(cat "$TMP/out")"
fi
