#!/usr/bin/env bash
# machload's cpus=N word (issue 28 item 6), on untraced boots:
#  - sid's SMP kernel on two CPUs: machload sees 2 CPUs and another
#    processor set, moves its second worker there, and the kernel says
#    (thread_info's last_processor) that worker 0 ran on processor 0 and
#    worker 1 on processor 1, each making its N round trips;
#  - the UP kernel: machload says there is no second CPU and both workers
#    still make theirs on the boot CPU.
# A missing SMP image is a SKIP.
set -u
. "$(dirname "$0")/mach_lib.sh"
need_kernel mach-cpus

SID=$BUILD/kernels/sid-smp/gnumach-dbg
N=150

# boot_cpus NAME machtrace-boot-options...: the console in $TMP/NAME.out
boot_cpus() {
	local name=$1
	shift
	timeout 120 "$MACHTRACE" boot "$@" --timeout 60 --workload "cpus=$N" >"$TMP/$name.out" 2>&1
}

# has NAME TEST LINE: a PASS when the console of NAME holds LINE
has() {
	grep -qxF -- "$3" "$TMP/$1.out" && pass "$2" ||
		fail "$2" "no '$3' in: $(grep '^machload' "$TMP/$1.out" | tr '\n' ' ' | head -c 600)"
}

if [ ! -f "$SID" ]; then
	echo "SKIP mach-cpus-smp: missing $SID (scripts/setup.sh)"
else
	boot_cpus smp --kernel "$SID" --cpus 2
	has smp mach-cpus-smp-sees-2 "machload: cpus avail=2 other-pset=yes"
	has smp mach-cpus-smp-worker0-cpu0 "machload: cpu worker=0 pset=default processor=0 ok=$N"
	has smp mach-cpus-smp-worker1-cpu1 "machload: cpu worker=1 pset=other processor=1 ok=$N"
	grep -q "^machload: cpus n=$((2 * N)) ok=$((2 * N)) .* OK$" "$TMP/smp.out" &&
		pass mach-cpus-smp-all-ok || fail mach-cpus-smp-all-ok "$(grep '^machload: cpus n' "$TMP/smp.out")"
fi

boot_cpus up
has up mach-cpus-up-says-one "machload: cpus avail=1 other-pset=no"
has up mach-cpus-up-no-second "machload: cpus: no second CPU to run on: the workers share the boot CPU"
has up mach-cpus-up-worker1-cpu0 "machload: cpu worker=1 pset=default processor=0 ok=$N"
grep -q "^machload: cpus n=$((2 * N)) ok=$((2 * N)) .* OK$" "$TMP/up.out" &&
	pass mach-cpus-up-all-ok || fail mach-cpus-up-all-ok "$(grep '^machload: cpus n' "$TMP/up.out")"
grep -q "^machload: done" "$TMP/up.out" && pass mach-cpus-up-carries-on ||
	fail mach-cpus-up-carries-on "no 'machload: done'"
