#!/usr/bin/env bash
# Boot benchmark: time from QEMU start to machload's first line, booting
# the same kernel and workload through our shim and through a GRUB ISO
# (TCG, same QEMU options otherwise).  Prints medians and their ratio.
#   bench/boot-bench.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${1:-7}
KERNEL=$BUILD/kernel/gnumach-dbg
SHIM=$BUILD/boot/shim.elf
TASK=$BUILD/guest/machload
WORDS="rt=100"
MARKER="machload: start"
out=$BUILD/bench
mkdir -p "$out"

for f in "$KERNEL" "$SHIM" "$TASK"; do
	[ -f "$f" ] || { echo "boot-bench: missing $f (run make setup all)" >&2; exit 1; }
done
if ! command -v grub-mkrescue >/dev/null || ! command -v xorriso >/dev/null ||
   ! command -v mformat >/dev/null || [ ! -d /usr/lib/grub/i386-pc ]; then
	echo "boot-bench: installing grub-pc-bin xorriso mtools for the GRUB comparison"
	sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq grub-pc-bin grub-common \
		xorriso mtools >/dev/null
fi
iso=$out/grub-machload.iso
bench/boot-iso.sh "$iso" "$KERNEL" "$TASK" $WORDS

shm=/dev/shm/machtrace-bench-$$
trap 'rm -f "$shm"' EXIT
Q=(qemu-system-x86_64 -accel tcg -display none -vga none -no-reboot -monitor none
   -serial stdio -m 512
   -object "memory-backend-file,id=ram0,size=512M,mem-path=$shm,share=on"
   -machine pc,memory-backend=ram0)
SHIM_BOOT=(-kernel "$SHIM" -initrd
	"$KERNEL console=com0,$TASK \${host-port} \${device-port} $WORDS \$(task-create) \$(task-resume)")
GRUB_BOOT=(-cdrom "$iso" -boot d)

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$out/boot-shim.txt"
: >"$out/boot-grub.txt"
for i in $(seq "$RUNS"); do
	s=$(python3 bench/boot-time.py "$MARKER" 30 -- "${Q[@]}" "${SHIM_BOOT[@]}")
	g=$(python3 bench/boot-time.py "$MARKER" 30 -- "${Q[@]}" "${GRUB_BOOT[@]}")
	rm -f "$shm"
	[ "$s" != fail ] && [ "$g" != fail ] || { echo "boot-bench: run $i failed (shim $s, grub $g)" >&2; exit 1; }
	echo "$s" >>"$out/boot-shim.txt"
	echo "$g" >>"$out/boot-grub.txt"
done
ms=$(median <"$out/boot-shim.txt")
mg=$(median <"$out/boot-grub.txt")
echo "boot to the workload's first line, median of $RUNS runs (TCG):"
printf '  %-22s %6.3f s   (runs: %s)\n' "shim (machtrace)" "$ms" "$(tr '\n' ' ' <"$out/boot-shim.txt")"
printf '  %-22s %6.3f s   (runs: %s)\n' "GRUB ISO" "$mg" "$(tr '\n' ' ' <"$out/boot-grub.txt")"
awk -v s="$ms" -v g="$mg" 'BEGIN { printf "  ratio GRUB/shim        %6.2fx  (shim %s 1 s)\n", g / s, s < 1 ? "under" : "NOT under" }'
