# The probe-context runtime.  runtime/*.c and runtime/x86_64/*.c are
# freestanding: no libc, no allocation, no locks.  The hosts that run it
# are the targets (targets/local/, and the GNU Mach blob in runtime/kernel/).
#
#   make                    also runs rt-nmcheck: the runtime objects may
#                           only leave mt_plat_* hooks undefined
#   make rt-kernel          compiles the runtime with the GNU Mach blob's
#                           flags (objects only) to keep it kernel-ready
RT_FREESTANDING_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 -Werror=missing-prototypes \
	-ffreestanding -fno-builtin -fno-stack-protector -fno-common \
	-fno-tree-loop-distribute-patterns
RT_KERNEL_CFLAGS := $(RT_FREESTANDING_CFLAGS) -nostdlib -mno-red-zone \
	-mgeneral-regs-only -mcmodel=kernel -fno-pic -fno-pie \
	-fno-asynchronous-unwind-tables
RT_SRCS := $(wildcard runtime/*.c)
RT_OBJS := $(RT_SRCS:%.c=$(BUILD)/obj/rt/%.o)
RT_KOBJS := $(RT_SRCS:%.c=$(BUILD)/obj/rtk/%.o)
$(BUILD)/obj/rt/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) -Iinclude -I. $(RT_FREESTANDING_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/rtk/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) -Iinclude -I. $(RT_KERNEL_CFLAGS) -MMD -MP -c $< -o $@

# No libc symbol in the runtime: every undefined symbol must be a hook.
RT_NM_ALLOW ?= ^mt_plat_
$(BUILD)/obj/rt/nmcheck.ok: $(RT_OBJS) $(RT_KOBJS)
	@for set in "$(RT_OBJS)" "$(RT_KOBJS)"; do \
		ld -r -o $@.o $$set || exit 1; \
		bad=$$(nm -u $@.o | awk '$$2 !~ /$(RT_NM_ALLOW)/ { print $$2 }' | sort -u); \
		if [ -n "$$bad" ]; then \
			echo "runtime: uses symbols outside the runtime:" $$bad >&2; \
			rm -f $@.o; exit 1; \
		fi; \
	done; rm -f $@.o; touch $@
.PHONY: rt-nmcheck rt-kernel
rt-nmcheck: $(BUILD)/obj/rt/nmcheck.ok
rt-kernel: $(RT_KOBJS)

$(BUILD)/lib/libmtrt.a: $(RT_OBJS) $(BUILD)/obj/rt/nmcheck.ok
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $(RT_OBJS)
MT_LIBS += $(BUILD)/lib/libmtrt.a
