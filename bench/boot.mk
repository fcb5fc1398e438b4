# bench/boot.mk: boot time of the shim against a GRUB ISO of the same kernel.
.PHONY: bench-boot
bench: bench-boot
bench-boot: $(BUILD)/boot/shim.elf $(BUILD)/guest/machload
	@bench/boot-bench.sh
