# The D compiler: one file per pass (see compiler/README or the file banners).
CC_SRCS := $(wildcard compiler/*.c)
CC_OBJS := $(CC_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/libmtcc.a: $(CC_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS += $(BUILD)/lib/libmtcc.a
