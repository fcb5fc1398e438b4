#!/usr/bin/env bash
# Every command that boots GNU Mach takes --kernel (issue 23 item 5), on
# forky's kernel (build/kernels/forky, scripts/fetch-kernel.sh --suite
# forky): baseline save then compare (which boots the kernel the baseline
# names), health, top (with --memory 256, and from a --disk image whose
# grub.cfg boots it), record, vm start and a toolkit script each run on it.  That each really boots the kernel given, not
# the stock one, is shown by a copy of forky's kernel lacking the
# function the boot needs: every command refuses that copy naming
# forky's version string.  No forky kernel: a SKIP.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live mach-anykernel
K=$BUILD/kernels/forky/gnumach-dbg
if [ ! -f "$K" ]; then
	echo "SKIP mach-anykernel: no $K (scripts/fetch-kernel.sh --suite forky)"
	exit 0
fi
export PATH="$PWD/$BUILD/bin:$PATH"
export MACHTRACE
VM=e2e-anyk-$$
D=$TMP/bl
ok() {	# name, condition status, what failed
	if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi
}

"$MACHTRACE" baseline save forky --kernel "$K" --workload 'rt=100' --runs 2 --dir "$D" \
	>"$TMP/save.out" 2>"$TMP/save.err"
rc=$?
grep -qF "\"kernel\": \"$K\"" "$D/forky.json" 2>/dev/null
ok mach-anykernel-baseline-save $((rc + $?)) "exit $rc: $(tail -n 3 "$TMP/save.err")"
"$MACHTRACE" baseline compare forky --dir "$D" >"$TMP/cmp.out" 2>"$TMP/cmp.err"
rc=$?
{ [ $rc = 0 ] || [ $rc = 3 ]; } && grep -qF "measuring 'rt=100' on $K, 2 runs" "$TMP/cmp.err"
ok mach-anykernel-baseline-compare $? "exit $rc: $(tail -n 3 "$TMP/cmp.err")"

timeout 120 "$MACHTRACE" health --kernel "$K" -d 1 >"$TMP/health.out" 2>"$TMP/health.err"
rc=$?
grep -q "^machtrace health: [0-9]*/100" "$TMP/health.out"
ok mach-anykernel-health $((rc + $?)) "exit $rc: $(tail -n 3 "$TMP/health.err")"

# --memory too: 256 MiB hold 65536 pages, the default 512 twice that
timeout 120 "$MACHTRACE" top -b -n 1 --kernel "$K" --memory 256 >"$TMP/top.out" 2>"$TMP/top.err"
rc=$?
free=$(sed -n 's/.*free pages \([0-9]*\).*/\1/p' "$TMP/top.out")
grep -q "refresh 1" "$TMP/top.out" && [ "${free:-0}" -gt 0 ] && [ "$free" -lt 65536 ]
ok mach-anykernel-top $((rc + $?)) "exit $rc, free pages ${free:-none}: $(tail -n 3 "$TMP/top.err")"

timeout 120 "$MACHTRACE" record -o "$TMP/trace" --events proc --kernel "$K" \
	--workload 'rt=20 tasks=2' >"$TMP/rec.out" 2>"$TMP/rec.err"
rc=$?
grep -rqF "$K" "$TMP/trace/kernel/metadata" 2>/dev/null	# LTTng's layout
ok mach-anykernel-record $((rc + $?)) "exit $rc: $(tail -n 3 "$TMP/rec.err")"

"$MACHTRACE" vm start --name $VM --kernel "$K" >"$TMP/vm.out" 2>"$TMP/vm.err"
rc=$?
"$MACHTRACE" vm list 2>/dev/null | grep "^$VM " | grep -qF "$K"
ok mach-anykernel-vm-start $((rc + $?)) "exit $rc: $(cat "$TMP/vm.err")"
"$MACHTRACE" vm stop $VM >/dev/null 2>&1

MACHTRACE_CONSOLE_LOG=$TMP/hot.con timeout 120 toolkit/hotkernel --kernel "$K" \
	--workload 'rt=50' >"$TMP/hot.out" 2>"$TMP/hot.err"
rc=$?
grep -q "^machload: rt n=50 ok=50 " "$TMP/hot.con" && grep -q 'gnumach`' "$TMP/hot.out"
ok mach-anykernel-toolkit $((rc + $?)) "exit $rc: $(tail -n 3 "$TMP/hot.err")"

# --disk: top boots forky's kernel from a disk image's grub.cfg
PATH=$PATH:/sbin:/usr/sbin
if command -v mke2fs >/dev/null; then
	mkdir -p "$TMP/root/boot/grub"
	gzip -c "$K" >"$TMP/root/boot/gnumach.gz"
	cp "$BUILD/guest/machload" "$TMP/root/boot/machload"
	cat >"$TMP/root/boot/grub/grub.cfg" <<'CFG'
menuentry "forky" {
	multiboot /boot/gnumach.gz console=com0
	module /boot/machload machload '${host-port}' '${device-port}' serve '$(task-create)' '$(task-resume)'
}
CFG
	mke2fs -q -F -t ext2 -d "$TMP/root" "$TMP/disk.img" 16M >/dev/null 2>&1
	MACHTRACE_CONSOLE_LOG=$TMP/disk.con timeout 120 "$MACHTRACE" top -b -n 1 \
		--disk "$TMP/disk.img" --snapshot >"$TMP/disk.out" 2>"$TMP/disk.err"
	rc=$?
	grep -q "refresh 1" "$TMP/disk.out" && grep -q "^module 0: machload .* serve " "$TMP/disk.con"
	ok mach-anykernel-top-disk $((rc + $?)) "exit $rc: $(tail -n 3 "$TMP/disk.err")"
else
	echo "SKIP mach-anykernel-top-disk: no mke2fs (e2fsprogs)"
fi

# each command boots the kernel it is given: forky's without
# biosmem_register_boot_data is refused, by forky's version string
objcopy --redefine-sym biosmem_register_boot_data=biosmem_register_boot_dat_ "$K" "$TMP/noreg"
ver=$(strings -a "$K" | grep -m1 '^GNU Mach ')
why="$ver ($TMP/noreg) cannot be traced"
refused() {	# name, command...
	local name=$1
	shift
	timeout 120 "$@" >"$TMP/r.out" 2>"$TMP/r.err"
	local rc=$?
	if [ $rc != 0 ] && [ -n "$ver" ] && grep -qF "$why" "$TMP/r.err"; then
		pass "mach-anykernel-$name-uses-it"
	else
		fail "mach-anykernel-$name-uses-it" "exit $rc: $(tail -n 3 "$TMP/r.err")"
	fi
}
refused baseline "$MACHTRACE" baseline save noreg --kernel "$TMP/noreg" --runs 2 --dir "$D"
refused health "$MACHTRACE" health --kernel "$TMP/noreg" -d 1
refused top "$MACHTRACE" top -b -n 1 --kernel "$TMP/noreg"
refused record "$MACHTRACE" record -o "$TMP/t2" --events proc --kernel "$TMP/noreg"
refused vm-start "$MACHTRACE" vm start --name $VM --kernel "$TMP/noreg"
"$MACHTRACE" vm stop $VM >/dev/null 2>&1
refused toolkit toolkit/hotkernel --kernel "$TMP/noreg"
