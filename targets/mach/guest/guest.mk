# targets/mach/guest/: freestanding 64-bit GNU Mach tasks (static ELF64 ET_EXEC).
GUEST_DIR := targets/mach/guest
GUEST_CFLAGS := -m64 -O2 -ffreestanding -fno-builtin -nostdlib -static -fno-pie \
	-fno-stack-protector -mgeneral-regs-only -mno-red-zone \
	-fno-asynchronous-unwind-tables -Wall -Wextra -std=gnu11
GUEST_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,separate-code
GUEST_LIB := $(GUEST_DIR)/rpc.c $(GUEST_DIR)/console.c $(GUEST_DIR)/lib.c
GUEST_LIB_OBJS := $(GUEST_LIB:$(GUEST_DIR)/%.c=$(BUILD)/guest/obj/%.o) $(BUILD)/guest/obj/x86_64/start.S.o

MT_EXTRA += $(BUILD)/guest/machload

$(BUILD)/guest/obj/%.o: $(GUEST_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/guest/obj/x86_64/start.S.o: $(GUEST_DIR)/x86_64/start.S
	@mkdir -p $(dir $@)
	$(CC) -m64 -c $< -o $@

$(BUILD)/guest/machload: $(BUILD)/guest/obj/machload.o $(GUEST_LIB_OBJS)
	$(CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) -o $@ $^

-include $(wildcard $(BUILD)/guest/obj/*.d)
