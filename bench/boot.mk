# bench/boot.mk: boot time of the shim against a GRUB ISO of the same kernel.
.PHONY: bench-boot
BENCH_STEPS += bench-boot
bench-boot: $(BUILD)/boot/shim.elf $(BUILD)/guest/machload
	$(call bench_keep,boot,bench/boot-bench.sh)
