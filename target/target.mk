# target/: the GNU Mach target (kernel image reader, QEMU launcher, CLI
# subcommands) as libmttarget.a, and the mt-mach test driver.
TARGET_SRCS := target/err.c target/paths.c target/console.c target/boot_args.c \
	target/qemu_cmd.c target/boot.c target/kimg.c target/kimg_dwarf.c \
	target/kimg_types.c target/x86_64/decode.c target/list.c target/cli.c
TARGET_OBJS := $(TARGET_SRCS:%.c=$(BUILD)/obj/%.o)
TARGET_LDLIBS := -ldw -lelf -lcapstone

MT_LIBS += $(BUILD)/lib/libmttarget.a
MT_LDLIBS += $(TARGET_LDLIBS)
MT_EXTRA += $(BUILD)/bin/mt-mach

$(BUILD)/lib/libmttarget.a: $(TARGET_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/bin/mt-mach: $(BUILD)/obj/target/mt-mach.o $(BUILD)/lib/libmttarget.a
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(TARGET_LDLIBS)

# Unit tests: tests/unit/target/test_*.c, built by tests/tests.mk.
