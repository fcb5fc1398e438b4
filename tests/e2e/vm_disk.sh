#!/usr/bin/env bash
# machtrace vm start --disk IMAGE (issue 12 items 1 and 5): a VM booted from
# what a Hurd-style disk's grub.cfg names (an ext2 image the test builds
# with mke2fs -d: the kernel and machload as the module); sessions attach
# to it as to any VM; vm stop removes the files taken out of the image.
set -u
. "$(dirname "$0")/vm_lib.sh"
need_live vm-disk
if ! command -v mke2fs >/dev/null 2>&1; then
	echo "SKIP vm-disk: no mke2fs"
	exit 0
fi
root=$TMP/root
mkdir -p "$root/boot/grub" "$root/hurd"
cp "$KERNEL" "$root/boot/gnumach"
cp "$BUILD/guest/machload" "$root/hurd/machload"
cat >"$root/boot/grub/grub.cfg" <<'CFG'
set default=0
menuentry 'GNU (machtrace test)' {
	multiboot /boot/gnumach console=com0
	module /hurd/machload machload '${host-port}' '${device-port}' rt=20 serve=50 '$(task-create)' '$(task-resume)'
}
CFG
mke2fs -q -t ext2 -d "$root" "$TMP/disk.img" 64M >/dev/null 2>&1 || { fail vm-disk "mke2fs failed"; exit 1; }

# TMPDIR not in realpath() form: the files taken out are removed all the same
if TMPDIR=$TMP/ "$MACHTRACE" vm start --name "$VM" --disk "$TMP/disk.img" --snapshot >"$TMP/start.out" 2>"$TMP/start.err" &&
   grep -q "kernel text identical to the image" "$TMP/start.out"; then
	QEMU_PID=$(cat "$VMDIR/qemu.pid")
	dd=$(sed -n 's/^disk_dir=//p' "$VMDIR/info")
	pass vm-disk-start
else
	fail vm-disk-start "$(cat "$TMP/start.out" "$TMP/start.err")"
	exit 1
fi

MACHTRACE_TEXTCHECK=1 timeout 60 "$MACHTRACE" --vm "$VM" -q -x statusrate=10ms -n 'machload1:::round-trip { @n = count(); }
tick-1s { exit(0); } END { printa("count %@d\n", @n); }' >"$TMP/s.out" 2>"$TMP/s.err"; rc=$?
n=$(val count "$TMP/s.out")
if [ $rc = 0 ] && [ "${n:-0}" -gt 0 ] && grep -q "kernel text identical" "$TMP/s.err"; then
	pass vm-disk-session
else
	fail vm-disk-session "exit $rc, count ${n:-none}: $(head -c 300 "$TMP/s.err")"
fi

"$MACHTRACE" vm stop "$VM" >/dev/null 2>&1
if [ -n "$dd" ] && [ ! -e "$dd" ]; then
	nothing_left vm-disk-nothing-left
else
	fail vm-disk-nothing-left "the files taken out of the image ('$dd') are left"
fi
