# link/: the link stage, between the compiler and the targets: match a
# program's probe descriptions against a target's probes and lay out the
# enabling image (abi.h).
LINK_SRCS := $(wildcard link/*.c)
LINK_OBJS := $(LINK_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/libmtlink.a: $(LINK_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS += $(BUILD)/lib/libmtlink.a
