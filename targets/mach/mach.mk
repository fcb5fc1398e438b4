# targets/mach/: the GNU Mach target (kernel image reader in image/, QEMU
# launcher in qemu/, CLI subcommands) as libmttarget.a, and the mt-mach
# test driver.  The live side (live/), the boot shim (shim/) and the guest
# tasks (guest/) have fragments of their own.
TARGET_SRCS := targets/mach/err.c targets/mach/qemu/paths.c targets/mach/qemu/console.c \
	targets/mach/qemu/boot_args.c targets/mach/qemu/qemu_cmd.c targets/mach/qemu/boot.c \
	targets/mach/image/kimg.c targets/mach/image/kzip.c targets/mach/image/bootcheck.c targets/mach/image/kimg_dwarf.c targets/mach/image/kimg_types.c targets/mach/image/dwloc.c targets/mach/image/kimg_locals.c targets/mach/image/kimg_lines.c \
	targets/mach/x86_64/insn.c targets/mach/x86_64/decode.c targets/mach/cli.c \
	targets/mach/lib/dlib.c targets/mach/disk/grubcfg.c targets/mach/disk/disk.c \
	targets/mach/machopt.c
TARGET_OBJS := $(TARGET_SRCS:%.c=$(BUILD)/obj/%.o)
TARGET_LDLIBS := -ldw -lelf -lcapstone -lext2fs -lcom_err -lz

MT_LIBS += $(BUILD)/lib/libmttarget.a
MT_LDLIBS += $(TARGET_LDLIBS)
MT_EXTRA += $(BUILD)/bin/mt-mach

# an installed machtrace caches the kernel version fetch-kernel.sh prefers
MT_KERNEL_TESTED := $(shell sed -n 's/^TESTED=//p' scripts/fetch-kernel.sh)
$(BUILD)/obj/targets/mach/qemu/paths.o: scripts/fetch-kernel.sh
$(BUILD)/obj/targets/mach/qemu/paths.o: HOST_CPPFLAGS += -DMT_KERNEL_TESTED='"$(MT_KERNEL_TESTED)"'

# the kernel D library is .incbin'd into dlib.o
$(BUILD)/obj/targets/mach/lib/dlib.o: targets/mach/lib/mach.d

$(BUILD)/lib/libmttarget.a: $(TARGET_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/bin/mt-mach: $(BUILD)/obj/targets/mach/mt-mach.o $(BUILD)/lib/libmttarget.a \
		$(BUILD)/lib/libmtcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(TARGET_LDLIBS)

# Unit tests: tests/unit/mach/test_*.c, built by tests/tests.mk.
