#!/usr/bin/env bash
# boot-iso.sh ISO KERNEL MACHLOAD WORD...: a GRUB rescue ISO booting the
# kernel with machload as bootstrap task, console on the serial line.
# GRUB needs the quotes around the boot-script variables (QEMU's -initrd
# must not have them).
set -euo pipefail
iso=$1 kernel=$2 task=$3
shift 3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/boot/grub"
cp "$kernel" "$d/boot/gnumach"
cp "$task" "$d/boot/machload"
cat >"$d/boot/grub/grub.cfg" <<CFG
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
set timeout=0
menuentry "gnumach machload" {
  multiboot /boot/gnumach console=com0
  module /boot/machload machload '\${host-port}' '\${device-port}' $* '\$(task-create)' '\$(task-resume)'
}
CFG
grub-mkrescue -o "$iso" "$d" >/dev/null 2>&1
