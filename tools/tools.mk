# tools/: the tools beside the command (tools/tools.h), each in its own
# folder; clients of session/ and readers of its traces.  Above session
# and output; below cmd/.
TOOLS_SRCS := $(wildcard tools/*/*.c)
TOOLS_OBJS := $(TOOLS_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/libmttools.a: $(TOOLS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS += $(BUILD)/lib/libmttools.a
