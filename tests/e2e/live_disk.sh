#!/usr/bin/env bash
# --disk IMAGE (issue 12 item 5): boot what a Hurd-style disk image's
# /boot/grub/grub.cfg boots.  The test builds ext2 images with mke2fs -d
# (no root needed): grub.cfg whose default entry is not the first (a decoy
# comes first), with comments, variables and quotes; the stock kernel
# gzip'd; machload as the module with the Hurd's single-quoted boot-script
# words.  The session's counts are checked against machload's own, the
# module string the kernel got against GRUB's, and the image's errors
# against their messages.
set -u
. "$(dirname "$0")/live_lib.sh"
need_live live-disk
for tool in mke2fs gzip dd; do
	if ! command -v $tool >/dev/null && [ ! -x /sbin/$tool ]; then
		echo "SKIP live-disk: no $tool (e2fsprogs)"
		exit 0
	fi
done
PATH=$PATH:/sbin:/usr/sbin
N=25

# image DIR GRUBCFG: a root directory with that grub.cfg, the gzip'd kernel
# and machload
root() {
	mkdir -p "$1/boot/grub"
	printf '%s' "$2" >"$1/boot/grub/grub.cfg"
	gzip -c "$KERNEL" >"$1/boot/gnumach.gz"
	cp "$BUILD/guest/machload" "$1/boot/machload"
}

cfg='# grub.cfg as grub-mkconfig writes it for the Hurd, shortened { }
set timeout=5
set kdir=/boot
rounds='"$N"'
if [ x"${feature_menuentry_id}" = xy ]; then
  menuentry_id_option="--id"
else
  menuentry_id_option=""
fi
set default="Debian GNU/Hurd (machtrace test)"
menuentry "Decoy: boots nothing" --class debian {
	multiboot /boot/no-such-kernel.gz console=com0
}
menuentry "Debian GNU/Hurd (machtrace test)" --class gnu-hurd $menuentry_id_option '"'"'mt-test'"'"' {
	echo		'"'"'Loading GNU Mach ...'"'"'
	multiboot	${kdir}/gnumach.gz console=com0   # a comment
	module		/boot/machload machload '"'"'${host-port}'"'"' '"'"'${device-port}'"'"' \
			"rt=$rounds" pingpong=0 '"'"'$(task-create)'"'"' '"'"'$(task-resume)'"'"'
}
'
root "$TMP/r1" "$cfg"
mke2fs -q -F -t ext2 -d "$TMP/r1" "$TMP/whole.img" 16M >/dev/null 2>"$TMP/mke2fs.err" ||
	{ fail live-disk-mke2fs "$(cat "$TMP/mke2fs.err")"; exit 1; }

prog='fbt::mach_msg_trap:entry /execname == "machload" && arg1 == 1 && arg2 == 48/ { @s = count(); }
machload1:::round-trip { @r = count(); }
END { printa("sends %@d\n", @s); printa("rt %@d\n", @r); }'

# disk_run NAME IMAGE [options]: as live_run, with --disk and a private TMPDIR
disk_run() {
	local name=$1 img=$2
	shift 2
	mkdir -p "$TMP/tmp-$name"
	TMPDIR=$TMP/tmp-$name MACHTRACE_CONSOLE_LOG=$TMP/$name.con timeout 240 \
		"$MACHTRACE" --timeout 200 --disk "$img" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}

disk_run whole "$TMP/whole.img" -q -n "$prog"
rc=$?
workload_ok live-disk-workload-completes "$TMP/whole.con"
s=$(val sends "$TMP/whole.out"); r=$(val rt "$TMP/whole.out")
if [ $rc = 0 ] && [ "${r:-x}" = $N ] && [ "${s:-0}" -ge $N ] &&
   grep -q "^machload: rt n=$N ok=$N " "$TMP/whole.con"; then
	pass live-disk-counts
else
	fail live-disk-counts "exit $rc, round trips ${r:-none} (want $N), 48-byte sends ${s:-none} (want >= $N): $(head -c 300 "$TMP/whole.err")"
fi
# GRUB's module string: the words after the file, quotes removed
want='module 0: machload ${host-port} ${device-port} rt=25 pingpong=0 $(task-create) $(task-resume)'
if grep -qxF "$want" "$TMP/whole.con"; then
	pass live-disk-module-string
else
	fail live-disk-module-string "console: $(grep '^module 0' "$TMP/whole.con")"
fi
if [ -z "$(ls -A "$TMP/tmp-whole")" ]; then
	pass live-disk-no-files-left
else
	fail live-disk-no-files-left "left in TMPDIR: $(ls -A "$TMP/tmp-whole")"
fi

# machtrace boot --disk: just boot it (the guest reboots when machload is done)
timeout 240 "$MACHTRACE" boot --disk "$TMP/whole.img" --snapshot --quiet --timeout 200 \
	--log "$TMP/boot.con" 2>"$TMP/boot.err"
rc=$?
if [ $rc = 0 ] && grep -q "^machload: rt n=$N ok=$N " "$TMP/boot.con"; then
	pass live-disk-boot-subcommand
else
	fail live-disk-boot-subcommand "exit $rc: $(head -c 300 "$TMP/boot.err")"
fi

# Ctrl-C ends a session on a system that never stops by itself (machload
# serve), and the extracted files go with it
root "$TMP/r9" "$(printf '%s' "$cfg" | sed 's|"rt=$rounds" pingpong=0|serve=20|')"
mke2fs -q -F -t ext2 -d "$TMP/r9" "$TMP/serve.img" 16M >/dev/null
# (timeout relays the SIGINT: a bash subshell in the background ignores it)
mkdir -p "$TMP/tmp-serve"
TMPDIR=$TMP/tmp-serve MACHTRACE_CONSOLE_LOG=$TMP/serve.con timeout 240 "$MACHTRACE" \
	--timeout 200 --disk "$TMP/serve.img" -q \
	-n 'fbt::mach_msg_trap:entry { @ = count(); } END { printa("msgs %@d\n", @); }' \
	>"$TMP/serve.out" 2>"$TMP/serve.err" &
pid=$!
for _ in $(seq 2000); do
	grep -q '^machload: serve round=1$' "$TMP/serve.con" 2>/dev/null && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
m=$(val msgs "$TMP/serve.out")
if [ $rc = 0 ] && [ "${m:-0}" -gt 0 ] && [ -z "$(ls -A "$TMP/tmp-serve")" ]; then
	pass live-disk-interrupted-cleans-up
else
	fail live-disk-interrupted-cleans-up "exit $rc, msgs ${m:-none}, left: $(ls -A "$TMP/tmp-serve") $(head -c 300 "$TMP/serve.err")"
fi

# machtrace record names the image and the entry as the trace's kernel
timeout 240 "$MACHTRACE" record -o "$TMP/trace" --timeout 200 --disk "$TMP/whole.img" \
	-n 'machload1:::round-trip {}' >"$TMP/rec.out" 2>"$TMP/rec.err"
rc=$?
if [ $rc = 0 ] && grep -qF "machtrace_kernel = \"$TMP/whole.img, entry 'Debian GNU/Hurd (machtrace test)'\";" "$TMP/trace/kernel/metadata"; then
	pass live-disk-record-env
else
	fail live-disk-record-env "exit $rc: $(grep -a machtrace_kernel "$TMP/trace/kernel/metadata" 2>/dev/null) $(head -c 300 "$TMP/rec.err")"
fi

# An MBR disk: partition 1 is not ext2, the file system with grub.cfg is
# partition 2 at 2 MiB; machload is gzip'd too (GRUB unzips modules).
root "$TMP/r2" "$(printf '%s' "$cfg" | sed 's|/boot/machload machload|/boot/machload.gz machload|')"
gzip "$TMP/r2/boot/machload"
mke2fs -q -F -t ext2 -d "$TMP/r2" "$TMP/part.fs" 16M 2>"$TMP/mke2fs.err" >/dev/null
dd if=/dev/zero of="$TMP/mbr.img" bs=1M count=18 status=none
dd if="$TMP/part.fs" of="$TMP/mbr.img" bs=1M seek=2 conv=notrunc status=none
# entries: 1 = FAT32 LBA at sector 64 (64 sectors), 2 = Linux at 4096 (32768)
printf '\0\0\0\0\x0c\0\0\0\x40\0\0\0\x40\0\0\0\x80\0\0\0\x83\0\0\0\0\x10\0\0\0\x80\0\0' |
	dd of="$TMP/mbr.img" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$TMP/mbr.img" bs=1 seek=510 conv=notrunc status=none

# while the session runs, QEMU has the image as IDE disk 0, raw, snapshot=on
disk_run mbr "$TMP/mbr.img" --snapshot -v -q -n "$prog" &
pid=$!
drive=
while kill -0 $pid 2>/dev/null; do
	drive=$(pgrep -af qemu-system | grep -o -- "-drive file=$TMP/mbr.img[^ ]*" | head -n 1)
	[ -n "$drive" ] && break
	sleep 0.02
done
wait $pid
rc=$?
r=$(val rt "$TMP/mbr.out")
if [ $rc = 0 ] && [ "${r:-x}" = $N ] && grep -q "^machload: rt n=$N ok=$N " "$TMP/mbr.con" &&
   grep -q "booting 'Debian GNU/Hurd (machtrace test)' (file system at byte 2097152)" "$TMP/mbr.err"; then
	pass live-disk-mbr
else
	fail live-disk-mbr "exit $rc, round trips ${r:-none}: $(head -c 300 "$TMP/mbr.err")"
fi
if [ "$drive" = "-drive file=$TMP/mbr.img,format=raw,if=ide,index=0,media=disk,snapshot=on" ]; then
	pass live-disk-attached
elif [ -z "$drive" ]; then
	echo "SKIP live-disk-attached: the session ended before its QEMU was seen"
else
	fail live-disk-attached "QEMU has '$drive'"
fi

# A GPT disk (protective MBR, header at LBA 1, entries at LBA 2): the file
# system is entry 2 at 4 MiB.  Planned only (-l lists the image kernel's
# probes without booting it).
dd if=/dev/zero of="$TMP/gpt.img" bs=1M count=20 status=none
dd if="$TMP/part.fs" of="$TMP/gpt.img" bs=1M seek=4 conv=notrunc status=none
printf '\0\0\0\0\xee\0\0\0\x01\0\0\0\xff\xff\xff\xff' |
	dd of="$TMP/gpt.img" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$TMP/gpt.img" bs=1 seek=510 conv=notrunc status=none
printf 'EFI PART' | dd of="$TMP/gpt.img" bs=1 seek=512 conv=notrunc status=none
# PartitionEntryLBA 2, 128 entries of 128 bytes
printf '\x02\0\0\0\0\0\0\0\x80\0\0\0\x80\0\0\0' |
	dd of="$TMP/gpt.img" bs=1 seek=$((512 + 72)) conv=notrunc status=none
# entry 2: a type GUID (not all zero), first LBA 8192
printf '\xaf\x3d\xc6\x0f' | dd of="$TMP/gpt.img" bs=1 seek=$((1024 + 128)) conv=notrunc status=none
printf '\0\x20\0\0\0\0\0\0' | dd of="$TMP/gpt.img" bs=1 seek=$((1024 + 128 + 32)) conv=notrunc status=none
"$MACHTRACE" -v -l --disk "$TMP/gpt.img" -n 'fbt::vm_fault:entry' >"$TMP/gpt.out" 2>"$TMP/gpt.err"
rc=$?
if [ $rc = 0 ] && grep -q "vm_fault entry" "$TMP/gpt.out" &&
   grep -q "booting 'Debian GNU/Hurd (machtrace test)' (file system at byte 4194304), 1 module" "$TMP/gpt.err"; then
	pass live-disk-gpt
else
	fail live-disk-gpt "exit $rc: $(head -c 300 "$TMP/gpt.err")"
fi

# errors: each a clear message and a non-zero exit, before QEMU starts,
# and nothing left in TMPDIR
bad() {	# name, image, expected message, [options]
	local name=$1 img=$2 msg=$3
	shift 3
	mkdir -p "$TMP/tmp-bad"
	TMPDIR=$TMP/tmp-bad "$MACHTRACE" --disk "$img" "$@" -n 'fbt::mach_msg_trap:entry' \
		>/dev/null 2>"$TMP/$name.err"
	local rc=$?
	if [ -n "$(ls -A "$TMP/tmp-bad")" ]; then
		fail "live-disk-error-$name" "files left in TMPDIR: $(ls -A "$TMP/tmp-bad")"
	elif [ $rc != 0 ] && grep -qF -- "$msg" "$TMP/$name.err"; then
		pass "live-disk-error-$name"
	else
		fail "live-disk-error-$name" "exit $rc: $(cat "$TMP/$name.err")"
	fi
}
mkdir -p "$TMP/r3/boot"
cp "$BUILD/guest/machload" "$TMP/r3/boot/"
mke2fs -q -F -t ext2 -d "$TMP/r3" "$TMP/nocfg.img" 4M >/dev/null
bad no-grub-cfg "$TMP/nocfg.img" "none of its 1 ext2/3/4 file system(s) holds /boot/grub/grub.cfg"

mkdir -p "$TMP/r4/boot/grub"
printf 'menuentry "Linux" {\n\tlinux /vmlinuz root=/dev/sda1\n}\n' >"$TMP/r4/boot/grub/grub.cfg"
mke2fs -q -F -t ext2 -d "$TMP/r4" "$TMP/linux.img" 4M >/dev/null
bad no-multiboot "$TMP/linux.img" "menu entry 'Linux' has no multiboot line (it boots with \`linux\`"

root "$TMP/r5" "$(printf '%s' "$cfg" | sed 's|/boot/machload machload|/boot/missing machload|')"
mke2fs -q -F -t ext2 -d "$TMP/r5" "$TMP/nomod.img" 16M >/dev/null
bad missing-module "$TMP/nomod.img" "grub.cfg names /boot/missing, which is not a file in its file system"

head -c 1048576 /dev/urandom >"$TMP/random.img"
bad not-a-fs "$TMP/random.img" "no ext2/3/4 file system on the whole disk"
printf 'QFI\373\0\0\0\3' >"$TMP/q.qcow2"
bad qcow2 "$TMP/q.qcow2" "is qcow2: machtrace reads raw images only (convert it: qemu-img convert -O raw"
bad no-image "$TMP/nonexistent.img" "disk image $TMP/nonexistent.img: No such file or directory"
bad with-kernel "$TMP/whole.img" "--disk boots the kernel and modules its grub.cfg names: it does not go with --kernel" --kernel "$KERNEL"
bad with-c "$TMP/whole.img" "it does not go with -c" -c 'machload rt=1'

# a stripped kernel is refused; one without DWARF is a warning (listed by
# symbol, no QEMU needed)
if command -v strip >/dev/null; then
	root "$TMP/r6" "$cfg"
	zcat "$TMP/r6/boot/gnumach.gz" >"$TMP/k"
	strip -s -o "$TMP/k.s" "$TMP/k" && gzip -c "$TMP/k.s" >"$TMP/r6/boot/gnumach.gz"
	mke2fs -q -F -t ext2 -d "$TMP/r6" "$TMP/stripped.img" 16M >/dev/null
	bad no-symbols "$TMP/stripped.img" "has no symbol table: machtrace cannot place probes in it"
	strip -g -o "$TMP/k.g" "$TMP/k" && gzip -c "$TMP/k.g" >"$TMP/r6/boot/gnumach.gz"
	mke2fs -q -F -t ext2 -d "$TMP/r6" "$TMP/nodwarf.img" 16M >/dev/null
	"$MACHTRACE" -l --disk "$TMP/nodwarf.img" -n 'fbt::vm_fault:entry' >"$TMP/nodwarf.out" 2>"$TMP/nodwarf.err"
	rc=$?
	if [ $rc = 0 ] && grep -q "vm_fault entry" "$TMP/nodwarf.out" &&
	   grep -q "has no DWARF: fbt probes work by symbol" "$TMP/nodwarf.err"; then
		pass live-disk-no-dwarf-warning
	else
		fail live-disk-no-dwarf-warning "exit $rc: $(cat "$TMP/nodwarf.out" "$TMP/nodwarf.err" | head -c 300)"
	fi
else
	echo "SKIP live-disk-no-symbols: no strip"
fi
