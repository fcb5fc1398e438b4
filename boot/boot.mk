# boot/: the 32-bit multiboot1 shim that QEMU -kernel loads (see boot/shim.c).
SHIM_CFLAGS := -m32 -march=i686 -ffreestanding -nostdlib -fno-pic -fno-pie \
	-fno-stack-protector -fno-builtin -fno-tree-loop-distribute-patterns \
	-fno-asynchronous-unwind-tables -O2 -Wall -Wextra -std=gnu11
SHIM_SRCS := boot/shim.c boot/lib.c boot/kernel.c boot/x86_64/hook.c boot/x86_64/blob.c
SHIM_OBJS := $(SHIM_SRCS:%.c=$(BUILD)/boot/%.o) $(BUILD)/boot/boot/shim.S.o

MT_EXTRA += $(BUILD)/boot/shim.elf

$(BUILD)/boot/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/boot/boot/shim.S.o: boot/shim.S
	@mkdir -p $(dir $@)
	$(CC) -m32 -c $< -o $@

$(BUILD)/boot/shim.elf: $(SHIM_OBJS) boot/shim.ld
	ld -m elf_i386 --no-warn-rwx-segments -T boot/shim.ld -o $@ $(SHIM_OBJS)

-include $(wildcard $(BUILD)/boot/boot/*.d $(BUILD)/boot/boot/x86_64/*.d)
