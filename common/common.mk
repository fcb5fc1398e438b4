# Host code shared by the compiler, consumer and targets (options, linking
# a program into an image, small utilities).
COMMON_SRCS := $(wildcard common/*.c)
COMMON_OBJS := $(COMMON_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/libmtcommon.a: $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
# JSON files (baselines) are read with jansson (common/jsonread.c)
MT_LDLIBS += -ljansson
