# targets/mach/shim/: the 32-bit multiboot1 shim that QEMU -kernel loads
# (see shim.c).  Output stays in $(BUILD)/boot/ (the launcher looks there).
SHIM_DIR := targets/mach/shim
SHIM_CFLAGS := -m32 -march=i686 -ffreestanding -nostdlib -fno-pic -fno-pie \
	-fno-stack-protector -fno-builtin -fno-tree-loop-distribute-patterns \
	-fno-asynchronous-unwind-tables -O2 -Wall -Wextra -Werror=missing-prototypes -std=gnu11 -Iinclude -I.
SHIM_SRCS := shim.c lib.c kernel.c x86_64/hook.c x86_64/blob.c
SHIM_OBJS := $(SHIM_SRCS:%.c=$(BUILD)/boot/obj/%.o) $(BUILD)/boot/obj/shim.S.o

MT_EXTRA += $(BUILD)/boot/shim.elf

$(BUILD)/boot/obj/%.o: $(SHIM_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/boot/obj/shim.S.o: $(SHIM_DIR)/shim.S
	@mkdir -p $(dir $@)
	$(CC) -m32 -c $< -o $@

$(BUILD)/boot/shim.elf: $(SHIM_OBJS) $(SHIM_DIR)/shim.ld
	ld -m elf_i386 --no-warn-rwx-segments -T $(SHIM_DIR)/shim.ld -o $@ $(SHIM_OBJS)

-include $(wildcard $(BUILD)/boot/obj/*.d $(BUILD)/boot/obj/x86_64/*.d)
