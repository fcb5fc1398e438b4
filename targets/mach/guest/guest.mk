# targets/mach/guest/: freestanding 64-bit GNU Mach tasks (static ELF64 ET_EXEC).
#
# machload's RPCs go through MIG stubs generated, as a Hurd server's are,
# from gnumach-dev's .defs (user side) and from machload.defs (both sides)
# with trixie's MIG (msgids/msgids.mk: KINC, MIGCOM).  Frame pointers kept:
# ustack() walks the rbp chain.
GUEST_DIR := targets/mach/guest
GUEST_CFLAGS := -m64 -O2 -ffreestanding -fno-builtin -nostdlib -static -fno-pie \
	-fno-stack-protector -mgeneral-regs-only -mno-red-zone \
	-fno-asynchronous-unwind-tables -fno-omit-frame-pointer -Wall -Wextra -Werror=missing-prototypes -std=gnu11
GUEST_CPPFLAGS = -I$(GUEST_DIR)/include -I$(BUILD)/guest/mig -I$(KINC)
GUEST_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,separate-code
GUEST_LIB := $(GUEST_DIR)/mig_support.c $(GUEST_DIR)/console.c $(GUEST_DIR)/lib.c \
	$(GUEST_DIR)/pager.c
GUEST_MIG_USER := mach mach_port mach_host device machload
GUEST_MIG_SERVER := machload
GUEST_MIG_C := $(GUEST_MIG_USER:%=$(BUILD)/guest/mig/%User.c) \
	$(GUEST_MIG_SERVER:%=$(BUILD)/guest/mig/%Server.c)
GUEST_MIG_H := $(GUEST_MIG_USER:%=$(BUILD)/guest/mig/mig_%.h)
GUEST_MIG_H += $(BUILD)/guest/mig/mig_memory_object_server.h
GUEST_LIB_OBJS := $(GUEST_LIB:$(GUEST_DIR)/%.c=$(BUILD)/guest/obj/%.o) \
	$(BUILD)/guest/obj/x86_64/start.S.o $(GUEST_MIG_C:%.c=%.o) \
	$(BUILD)/guest/mig/memory_objectServer.o

MT_EXTRA += $(BUILD)/guest/machload

GUEST_DEFS_mach := $(KINC)/mach/mach.defs
GUEST_DEFS_mach_port := $(KINC)/mach/mach_port.defs
GUEST_DEFS_mach_host := $(KINC)/mach/mach_host.defs
GUEST_DEFS_device := $(KINC)/device/device.defs
GUEST_DEFS_machload := $(GUEST_DIR)/machload.defs
$(KINC)/%.defs: | $(MIGCOM)
	@test -f $@

# cpp | migcom, as the mig script does, but keeping the target's predefined
# macros (machine_types.defs sizes types by __x86_64__; -ansi drops "linux").
define guest_mig
$(BUILD)/guest/mig/$(1)User.c $(BUILD)/guest/mig/mig_$(1).h $(if $(filter $(1),$(GUEST_MIG_SERVER)),$(BUILD)/guest/mig/$(1)Server.c) &: $(GUEST_DEFS_$(1)) $(MIGCOM)
	@mkdir -p $(BUILD)/guest/mig
	$(CC) -E -x c -ansi -I$(KINC) $(GUEST_DEFS_$(1)) | $(MIGCOM) \
		-user $(BUILD)/guest/mig/$(1)User.c -header $(BUILD)/guest/mig/mig_$(1).h \
		-server $(if $(filter $(1),$(GUEST_MIG_SERVER)),$(BUILD)/guest/mig/$(1)Server.c,/dev/null) \
		-sheader /dev/null
endef
$(foreach d,$(GUEST_MIG_USER),$(eval $(call guest_mig,$(d))))

# memory_object.defs, server side only (machload's pager, contend=N): its
# user side would define the routines' names that the server calls.
$(BUILD)/guest/mig/memory_objectServer.c $(BUILD)/guest/mig/mig_memory_object_server.h &: $(KINC)/mach/memory_object.defs $(MIGCOM)
	@mkdir -p $(BUILD)/guest/mig
	$(CC) -E -x c -ansi -I$(KINC) $(KINC)/mach/memory_object.defs | $(MIGCOM) \
		-user /dev/null -header /dev/null \
		-server $(BUILD)/guest/mig/memory_objectServer.c \
		-sheader $(BUILD)/guest/mig/mig_memory_object_server.h

# MIG's generated code declares nothing it defines: no prototype check.
$(BUILD)/guest/mig/%.o: $(BUILD)/guest/mig/%.c $(GUEST_MIG_H)
	$(CC) $(GUEST_CFLAGS) $(GUEST_CPPFLAGS) -Wno-unused-parameter -Wno-missing-prototypes -c $< -o $@

$(BUILD)/guest/obj/%.o: $(GUEST_DIR)/%.c $(GUEST_MIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) $(GUEST_CPPFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/guest/obj/x86_64/start.S.o: $(GUEST_DIR)/x86_64/start.S
	@mkdir -p $(dir $@)
	$(CC) -m64 -c $< -o $@

$(BUILD)/guest/machload: $(BUILD)/guest/obj/machload.o $(GUEST_LIB_OBJS)
	$(CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) -o $@ $^

-include $(wildcard $(BUILD)/guest/obj/*.d)
