#!/usr/bin/env bash
# An installed machtrace works outside its checkout: make install into a
# scratch DESTDIR, then, with the checkout's build/ hidden under an empty
# tmpfs (a private mount namespace; without one the run only starts from
# another directory, said by a SKIP line), the installed programs find
# their run-time files from PREFIX/bin/../lib/machtrace and the kernel in
# $XDG_CACHE_HOME/machtrace/kernels/VERSION.  Checks a local one-liner, a
# kernel one-liner against machload's own report, vm start/attach/stop,
# record + report, a toolkit script, --version, and the message when the
# kernel cannot be fetched.
set -u
. "$(dirname "$0")/live_lib.sh"

if [ -z "${MT_INSTALLED_INNER:-}" ]; then
	need_live installed
	ROOT=$(mktemp -d /tmp/mt-installed.XXXXXX)
	trap 'rm -rf "$ROOT" "$TMP"' EXIT
	if ! make -s --no-print-directory install DESTDIR="$ROOT/root" PREFIX=/usr \
	     >"$ROOT/make.log" 2>&1; then
		fail installed-make-install "$(tail -n 3 "$ROOT/make.log" | tr '\n' ' ')"
		exit 0
	fi
	want=$(sed -n 's/^TESTED=//p' scripts/fetch-kernel.sh)
	mkdir -p "$ROOT/cache/machtrace/kernels/$want" "$ROOT/cwd"
	cp -r "$KERNEL" "$BUILD/kernel/VERSION" "$BUILD/kernel/mig" "$ROOT/cache/machtrace/kernels/$want/"
	export MT_INSTALLED_INNER=$ROOT CHECKOUT=$PWD
	self=$PWD/$0
	if unshare -m true 2>/dev/null; then
		MT_INSTALLED_HIDDEN=1 unshare -m bash -c \
			'mount -t tmpfs none "$CHECKOUT/$1" && exec bash "$2"' \
			_ "$BUILD" "$self"
	else
		echo "SKIP installed-build-hidden: no mount namespace (unshare -m): runs from another directory only"
		bash "$self"
	fi
	exit 0
fi

# Inside: the installed tree only.
ROOT=$MT_INSTALLED_INNER
BIN=$ROOT/root/usr/bin
MT=$BIN/machtrace
unset MACHTRACE_BUILD
export XDG_CACHE_HOME=$ROOT/cache PATH=$BIN:$PATH
cd "$ROOT/cwd" || exit 1

if [ -n "${MT_INSTALLED_HIDDEN:-}" ]; then
	if [ -z "$(ls -A "$CHECKOUT/$BUILD")" ]; then
		pass installed-build-hidden
	else
		fail installed-build-hidden "$CHECKOUT/$BUILD is not empty"
	fi
fi

out=$("$MT" --version 2>&1)
if [ "$out" = "machtrace $(cat "$CHECKOUT/VERSION")" ]; then
	pass installed-version
else
	fail installed-version "$out"
fi

out=$("$MT" -q -n 'BEGIN { printf("%d\n", 1 + 2); exit(0); }' 2>&1)
if [ "$out" = 3 ]; then
	pass installed-local-oneliner
else
	fail installed-local-oneliner "$out"
fi

# machload's round-trip probe fires once per round trip it reports
N=200
MACHTRACE_CONSOLE_LOG=$TMP/k.con timeout 240 "$MT" -q --workload "rt=$N pages=0 threads=0 tasks=0" -n '
fbt::mach_msg_trap:entry /execname == "machload"/ { @m = count(); }
machload1:::round-trip { @n = count(); }
END { printa("m %@d\n", @m); printa("n %@d\n", @n); }' >"$TMP/k.out" 2>"$TMP/k.err"
rc=$?
reported=$(sed -n 's/^machload: rt n=\([0-9]*\) ok=\([0-9]*\) .*/\2/p' "$TMP/k.con")
n=$(val n "$TMP/k.out"); m=$(val m "$TMP/k.out")
if [ $rc = 0 ] && [ "$reported" = $N ] && [ "${n:-x}" = "$reported" ] && [ "${m:-0}" -ge $((2 * N)) ]; then
	pass installed-kernel-oneliner
else
	fail installed-kernel-oneliner "exit $rc, round-trip ${n:-none} mach_msg_trap ${m:-none}, machload ok=${reported:-none}: $(head -c 300 "$TMP/k.err")"
fi

VM=inst-$$
if "$MT" vm start --name "$VM" --memory 256 --workload 'rpcs=20 serve=50' >"$TMP/vs.out" 2>&1 &&
   out=$(timeout 120 "$MT" --vm "$VM" -q -n 'fbt::mach_msg_trap:entry { @ = count(); } tick-1s { printa("%@d\n", @); exit(0); }' 2>&1) &&
   [ "${out:-0}" -gt 0 ] 2>/dev/null; then
	pass installed-vm-attach
else
	fail installed-vm-attach "$(cat "$TMP/vs.out") ${out:-}"
fi
if "$MT" vm stop "$VM" >"$TMP/vstop.out" 2>&1 && ! "$MT" vm list 2>/dev/null | grep -q "$VM"; then
	pass installed-vm-stop
else
	fail installed-vm-stop "$(cat "$TMP/vstop.out")"
fi

if timeout 240 "$MT" record -o "$TMP/trace" --events sched,ipc --workload 'rpcs=10' >"$TMP/r.out" 2>&1 &&
   "$MT" report "$TMP/trace" -o "$TMP/r.html" >>"$TMP/r.out" 2>&1 &&
   grep -q '<html' "$TMP/r.html" && grep -q 'd3' "$TMP/r.html"; then
	pass installed-record-report
else
	fail installed-record-report "$(tail -n 3 "$TMP/r.out")"
fi

if timeout 240 hotkernel --workload 'rt=300' >"$TMP/h.out" 2>&1 &&
   grep -q '^FUNCTION  *COUNT  *PCNT' "$TMP/h.out" && grep -q '^gnumach`' "$TMP/h.out"; then
	pass installed-toolkit-hotkernel
else
	fail installed-toolkit-hotkernel "$(tail -n 3 "$TMP/h.out")"
fi

# kernel list and kernel fetch use the user's cache, not a build tree: a
# fetch into the filled cache has nothing to do (no mirror needed), into an
# empty one it needs the mirror
want=$(sed -n 's/^TESTED=//p' "$CHECKOUT/scripts/fetch-kernel.sh")
out=$("$MT" kernel list 2>&1)
if printf '%s\n' "$out" | awk -v w="$want" -v p="$ROOT/cache/machtrace/kernels/$want/gnumach-dbg" \
	'$1 == w && $2 == p { ok = 1 } END { exit !ok }'; then
	pass installed-kernel-list
else
	fail installed-kernel-list "$out"
fi
export MACHTRACE_MIRROR=http://127.0.0.1:9/debian
if timeout 300 "$MT" kernel fetch >"$TMP/kf.out" 2>&1 && [ ! -s "$TMP/kf.out" ] &&
   ! XDG_CACHE_HOME=$ROOT/fetched timeout 300 "$MT" kernel fetch >"$TMP/kf2.out" 2>&1 &&
   grep -q "fetch-kernel: cannot reach the Debian mirror" "$TMP/kf2.out"; then
	pass installed-kernel-fetch-command
else
	fail installed-kernel-fetch-command "$(tail -n 2 "$TMP/kf.out" "$TMP/kf2.out")"
fi

# no kernel cached and no mirror: the fetch is tried and its reason shown
XDG_CACHE_HOME=$ROOT/empty timeout 300 "$MT" -n 'fbt::mach_msg_trap:entry { @ = count(); }' >"$TMP/f.out" 2>"$TMP/f.err"
rc=$?
if [ $rc = 1 ] && grep -q "no GNU Mach kernel in $ROOT/empty/machtrace/kernels/.*: fetching" "$TMP/f.err" &&
   grep -q "fetch-kernel: cannot reach the Debian mirror" "$TMP/f.err" &&
   grep -q "no kernel at .*gnumach-dbg: machtrace could not fetch" "$TMP/f.err"; then
	pass installed-kernel-fetch-fails-clearly
else
	fail installed-kernel-fetch-fails-clearly "exit $rc: $(cat "$TMP/f.err")"
fi
