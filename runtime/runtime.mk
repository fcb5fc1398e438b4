# The probe-context runtime.  runtime/*.c and runtime/x86_64/*.c are
# freestanding: no libc, no allocation, no locks.  runtime/host/*.c is the
# local target's harness (ordinary host code).
RT_FREESTANDING_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
	-ffreestanding -fno-builtin -fno-stack-protector -fno-common \
	-fno-tree-loop-distribute-patterns
RT_SRCS := $(wildcard runtime/*.c)
RT_OBJS := $(RT_SRCS:%.c=$(BUILD)/obj/rt/%.o)
$(BUILD)/obj/rt/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) -Iinclude -I. $(RT_FREESTANDING_CFLAGS) -MMD -MP -c $< -o $@
RTHOST_SRCS := $(wildcard runtime/host/*.c)
RTHOST_OBJS := $(RTHOST_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/libmtrt.a: $(RT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/lib/libmtrthost.a: $(RTHOST_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS += $(BUILD)/lib/libmtrthost.a $(BUILD)/lib/libmtrt.a
