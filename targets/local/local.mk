# targets/local/: the local target, which hosts the runtime in this process
# (ordinary host code, not probe context) for tests and the -l listing.
LOCAL_SRCS := $(wildcard targets/local/*.c)
LOCAL_OBJS := $(LOCAL_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/libmtlocal.a: $(LOCAL_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS += $(BUILD)/lib/libmtlocal.a
