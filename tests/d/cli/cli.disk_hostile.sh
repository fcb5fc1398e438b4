#!/bin/sh
# --disk IMAGE given a hostile image (issue 22 item 7): a truncated image
# and a gzip bomb among the modules are clear errors and a non-zero exit, planned
# only (-l), before any QEMU; nothing is left in TMPDIR.
PATH=$PATH:/sbin:/usr/sbin
for tool in mke2fs debugfs gzip; do
	command -v $tool >/dev/null || { echo "SKIP: no $tool (e2fsprogs)"; exit 0; }
done
check() {	# image, expected message
	rm -rf "$T/tmp"; mkdir -p "$T/tmp"
	TMPDIR=$T/tmp "$MT" -l --disk "$1" -n 'fbt::vm_fault:entry' >/dev/null 2>"$T/err"
	rc=$?
	# an error's exit status, not a signal's
	[ $rc -ne 0 ] && [ $rc -lt 128 ] || { echo "$1: exit $rc: $(head -c 300 "$T/err")"; exit 1; }
	grep -qF -- "$2" "$T/err" || { echo "$1: $(head -c 300 "$T/err")"; exit 1; }
	[ -z "$(ls -A "$T/tmp")" ] || { echo "$1: left in TMPDIR: $(ls -A "$T/tmp")"; exit 1; }
}
# an image cut where grub.cfg's first block starts: its inode says more
# than the image holds
mkdir -p "$T/r1/boot/grub"
printf 'menuentry x {\n multiboot /boot/k\n}\n' >"$T/r1/boot/grub/grub.cfg"
head -c 4096 /dev/zero >"$T/r1/boot/k"
mke2fs -q -F -t ext2 -b 1024 -d "$T/r1" "$T/whole.img" 4M >/dev/null 2>&1 ||
	{ echo "mke2fs failed"; exit 1; }
blk=$(debugfs -R "bmap /boot/grub/grub.cfg 0" "$T/whole.img" 2>/dev/null)
[ "${blk:-0}" -gt 0 ] || { echo "debugfs: no block for grub.cfg ('$blk')"; exit 1; }
head -c $((blk * 1024)) "$T/whole.img" >"$T/cut.img"
check "$T/cut.img" "/boot/grub/grub.cfg: read: "

# a module that gunzips to more than any guest could hold (300 MiB of zeros)
mkdir -p "$T/r2/boot/grub"
printf 'menuentry x {\n multiboot /boot/k\n module /boot/bomb.gz bomb\n}\n' \
	>"$T/r2/boot/grub/grub.cfg"
head -c 4096 /dev/zero >"$T/r2/boot/k"
head -c $((300 << 20)) /dev/zero | gzip -9 >"$T/r2/boot/bomb.gz"
mke2fs -q -F -t ext2 -d "$T/r2" "$T/bomb.img" 8M >/dev/null 2>&1 ||
	{ echo "mke2fs failed"; exit 1; }
check "$T/bomb.img" "/boot/bomb.gz: gunzipped, larger than 268435456 bytes"
exit 0
