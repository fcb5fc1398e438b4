#!/usr/bin/env bash
# Fetch a Debian GNU Mach kernel (amd64-up-dbg image, gnumach-dev, MIG) into
# a build cache.
#
#   scripts/fetch-kernel.sh [--cache DIR]        trixie's tested kernel
#   scripts/fetch-kernel.sh --suite SUITE [--version V] [--kernels DIR | --cache DIR]
#                           [--variant smp]
#
# Without --suite/--version it fetches trixie's tested kernel into
# build/kernel (the default every command boots).  With --suite (trixie,
# forky, sid, testing, unstable, ...) it fetches that suite's newest
# version, or exactly --version V (no fallback), into
# build/kernels/SUITE-V (V without its epoch; --kernels DIR instead of
# build/kernels) and points the symlink build/kernels/SUITE at it; boot it
# with `machtrace --kernel build/kernels/SUITE/gnumach-dbg`.  --variant smp
# fetches the suite's SMP image (gnumach-image-1.8-amd64-smp-dbg) instead,
# into build/kernels/SUITE-smp-V with the symlink build/kernels/SUITE-smp.
#
# Uses apt-get with a private state directory (the system's sources and lists
# stay untouched); the mirror URI is read from the machine's apt
# configuration.  Integrity is apt's signed chain: the Release file is
# checked against the Debian archive keyring, the Packages index against
# Release, and each .deb against the SHA256 of its Packages entry (apt-get
# download does it; the script checks it again before unpacking).
# For trixie's default, the tested version is preferred; when trixie no
# longer has it (a point release moved on), the newest version trixie has
# is used instead, and said so.  Result:
#   CACHE/gnumach-dbg   the ELF64 kernel with symbols and DWARF
#   CACHE/include/      gnumach-dev's headers and .defs
#   CACHE/mig/          the suite's MIG (x86_64-gnu-mig, x86_64-gnu-migcom),
#                       its tested version or the suite's newest: machload's
#                       stubs must match these headers' LP64 message layout,
#                       which bookworm's MIG predates
#   CACHE/VERSION       the package version used; a second line
#                       "fallback-from: V" when V was wanted but missing
# Does nothing when CACHE/VERSION already answers for the wanted version.
# MACHTRACE_MIRROR overrides the mirror URI (tests point it at a dead port);
# MACHTRACE_KERNEL_VERSION the preferred trixie version (default: the
# tested one).
set -euo pipefail

TESTED=2:1.8+git20250702-1
WANT=${MACHTRACE_KERNEL_VERSION:-$TESTED}
SUITE=trixie
top=$(cd "$(dirname "$0")/.." && pwd)
PKGS=(gnumach-image-1.8-amd64-up-dbg gnumach-dev)
MIG_PKG=mig-x86-64-gnu
MIG_TESTED=1.8+git20231217-8
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

die() { echo "fetch-kernel: $*" >&2; exit 1; }

cache=
kernels=$top/build/kernels
exact=
extra=
VARIANT=
while [ $# -gt 0 ]; do
	case "$1" in
	--cache) cache=${2:?--cache needs a directory}; shift 2 ;;
	--suite) SUITE=${2:?--suite needs a suite name}; extra=1; shift 2 ;;
	--version) WANT=${2:?--version needs a package version}; exact=1; extra=1; shift 2 ;;
	--kernels) kernels=${2:?--kernels needs a directory}; shift 2 ;;
	--variant) case "${2:-}" in
		up) ;;
		smp) VARIANT=-smp; PKGS[0]=gnumach-image-1.8-amd64-smp-dbg ;;
		*) die "--variant takes up or smp" ;;
		esac; shift 2 ;;
	-h|--help) sed -n '2,39p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
case "$SUITE" in
*[!a-z0-9-]*|'') die "bad suite name: $SUITE" ;;
esac
[ -n "$extra" ] || [ -z "$VARIANT" ] || die "--variant smp needs --suite"
[ -n "$extra" ] || cache=${cache:-build/kernel}
kernels=$(realpath -m "$kernels")

# An extra kernel's directory: build/kernels/SUITE[-smp]-VERSION (no epoch).
extra_dir() { echo "$kernels/$SUITE$VARIANT-${1#*:}"; }
if [ -n "$exact" ] && [ -z "$cache" ]; then
	cache=$(extra_dir "$WANT")
fi

# A cached kernel of the wanted version, or the fallback chosen when the
# wanted version was missing, is kept.
# An extra kernel asked by suite alone is known only after the index says
# which version is the newest.
cached() {
	[ -f "$1/VERSION" ] && [ -s "$1/gnumach-dbg" ] && [ -x "$1/mig/x86_64-gnu-migcom" ] &&
	{ [ "$(sed -n 1p "$1/VERSION")" = "$WANT" ] ||
	  [ "$(sed -n 's/^fallback-from: //p' "$1/VERSION")" = "$WANT" ]; }
}
# The symlink build/kernels/SUITE names the suite's kernel last fetched.
link_suite() {
	[ -n "$extra" ] && [ "$cache" = "$(extra_dir "$WANT")" ] || return 0
	ln -sfn "$(basename "$cache")" "$kernels/$SUITE$VARIANT"
}
if [ -n "$cache" ] && cached "$cache"; then
	link_suite
	exit 0
fi

# The first http(s) URI of a Debian archive in the apt configuration
# (deb822 .sources files first, then one-line sources.list entries).
find_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; break } }' "$f"
	done
}
mirror=${MACHTRACE_MIRROR:-$(find_mirror | grep -v -e security -e snapshot | head -n1 || true)}
[ -n "$mirror" ] || die "no Debian mirror found in the apt configuration (/etc/apt/sources.list*)"
[ -f "$KEYRING" ] || die "missing $KEYRING (install debian-archive-keyring)"
command -v apt-get >/dev/null || die "apt-get not found: a Debian system is needed to fetch the kernel"

state=$(mktemp -d "${TMPDIR:-/tmp}/machtrace-apt.XXXXXX")
trap 'rm -rf "$state"' EXIT
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/debs" \
	"$state/sources.list.d"
echo "deb [signed-by=$KEYRING] $mirror $SUITE main" >"$state/sources.list"

apt_opts=(
	-o "Dir::Etc::SourceList=$state/sources.list"
	-o "Dir::Etc::SourceParts=$state/sources.list.d"
	-o "Dir::State::Lists=$state/lists"
	-o "Dir::Cache=$state/cache"
	-o Acquire::Retries=1
	-o Acquire::http::Timeout=20
)
# apt's download sandbox user cannot write into a private directory of root's
[ "$(id -u)" = 0 ] && apt_opts+=(-o APT::Sandbox::User=root)

echo "fetch-kernel: fetching ${PKGS[*]} from $SUITE"
if ! apt-get "${apt_opts[@]}" -qq update >"$state/update.log" 2>&1 ||
   grep -qE '^(E:|Err:)' "$state/update.log"; then
	sed 's/^/  /' "$state/update.log" >&2
	die "cannot reach the Debian mirror $mirror for $SUITE (no network?)"
fi
if ! ls "$state/lists/"*_Packages* >/dev/null 2>&1; then
	sed 's/^/  /' "$state/update.log" >&2
	die "cannot reach the Debian mirror $mirror: no package index for $SUITE (no network?)"
fi
# The versions of package $1 in the (signed) index, one a line.
versions_of() {
	apt-cache "${apt_opts[@]}" madison "$1" 2>/dev/null |
		awk -F'|' '{ gsub(/ /, "", $2); if ($2 != "") print $2 }' | sort -u
}
# The versions every package has (they come from one source package).
for p in "${PKGS[@]}"; do
	[ -n "$(versions_of "$p")" ] || die "$SUITE has no package $p"
done
common=$(versions_of "${PKGS[0]}")
for p in "${PKGS[@]:1}"; do
	common=$(comm -12 <(echo "$common") <(versions_of "$p"))
done
[ -n "$common" ] || die "$SUITE has no version of ${PKGS[*]} (all of them)"
newest=
for v in $common; do
	if [ -z "$newest" ] || dpkg --compare-versions "$v" gt "$newest"; then
		newest=$v
	fi
done
if [ -n "$extra" ] && [ -z "$exact" ]; then
	WANT=$newest
fi
if [ -n "$exact" ] && ! grep -qxF -- "$WANT" <<<"$common"; then
	die "$SUITE has no version $WANT of ${PKGS[*]} (it has: $(echo $common))"
fi
if [ -z "$cache" ]; then
	cache=$(extra_dir "$WANT")
	if cached "$cache"; then
		echo "fetch-kernel: $SUITE's $WANT is already in $cache" >&2
		link_suite
		exit 0
	fi
fi
if grep -qxF -- "$WANT" <<<"$common"; then
	VERSION=$WANT
	if [ "$WANT" = "$TESTED" ]; then what="the tested version"; elif [ -n "$exact" ] || [ -z "$extra" ]; then what="as asked"; else what="the newest in $SUITE"; fi
	echo "fetch-kernel: using $VERSION ($what)" >&2
else
	VERSION=$newest
	[ "$VERSION" = "$TESTED" ] && what="the tested version" ||
		what="untested: the tested one is $TESTED"
	echo "fetch-kernel: $WANT is not in $SUITE; using the newest there," \
		"$VERSION ($what)" >&2
fi

spec=()
for p in "${PKGS[@]}"; do spec+=("$p=$VERSION"); done
if ! (cd "$state/debs" && apt-get "${apt_opts[@]}" -qq download "${spec[@]}") >"$state/download.log" 2>&1; then
	sed 's/^/  /' "$state/download.log" >&2
	die "cannot download ${PKGS[*]} version $VERSION"
fi

# MIG comes from another source package: its tested version, else the newest.
mig_version=$MIG_TESTED
if ! versions_of "$MIG_PKG" | grep -qxF -- "$MIG_TESTED"; then
	mig_version=$(versions_of "$MIG_PKG" | sort -V | tail -n1)
	[ -n "$mig_version" ] || die "$SUITE has no $MIG_PKG"
	echo "fetch-kernel: $MIG_PKG $MIG_TESTED is not in $SUITE; using $mig_version (untested)" >&2
fi
if ! (cd "$state/debs" && apt-get "${apt_opts[@]}" -qq download "$MIG_PKG=$mig_version") >"$state/download.log" 2>&1; then
	sed 's/^/  /' "$state/download.log" >&2
	die "cannot download $MIG_PKG version $mig_version"
fi

mkdir -p "$cache"
cache=$(realpath "$cache")
x="$state/x"
mkdir -p "$x"
for p in "${PKGS[@]}" "$MIG_PKG"; do
	deb=$(ls "$state/debs/${p}_"*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || die "$p: no .deb downloaded"
	v=$VERSION
	[ "$p" = "$MIG_PKG" ] && v=$mig_version
	sum=$(apt-cache "${apt_opts[@]}" show "$p=$v" 2>/dev/null |
		awk '$1 == "SHA256:" { print $2; exit }')
	[ -n "$sum" ] || die "$p: no SHA256 for $v in the signed index"
	echo "$sum  $deb" | sha256sum -c --quiet - >/dev/null 2>&1 ||
		die "$p: SHA-256 mismatch for $(basename "$deb") (index says $sum)"
	dpkg-deb -x "$deb" "$x" || die "$p: cannot unpack $(basename "$deb")"
done

gz=$(ls "$x"/boot/gnumach-*-dbg.gz 2>/dev/null | head -n1)
[ -n "$gz" ] || die "no gnumach-*-dbg.gz in the package"
zcat "$gz" >"$cache/gnumach-dbg.tmp"
head -c 4 "$cache/gnumach-dbg.tmp" | grep -q ELF || die "unpacked kernel is not an ELF file"
mv "$cache/gnumach-dbg.tmp" "$cache/gnumach-dbg"
rm -rf "$cache/include"
cp -a "$x/usr/include" "$cache/include"
[ -d "$x/usr/share/msgids" ] && cp -a "$x/usr/share/msgids" "$cache/msgids"
rm -rf "$cache/mig"
mkdir -p "$cache/mig"
cp -a "$x/usr/lib/mig/x86_64-gnu-migcom" "$x/usr/bin/x86_64-gnu-mig" "$cache/mig/"
{
	echo "$VERSION"
	[ "$VERSION" = "$WANT" ] || echo "fallback-from: $WANT"
} >"$cache/VERSION"
link_suite
echo "fetch-kernel: kernel in $cache/gnumach-dbg"
