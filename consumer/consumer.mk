# The consumer: drains buffers, snapshots aggregations, formats output.
CONS_SRCS := $(wildcard consumer/*.c)
CONS_OBJS := $(CONS_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/libmtcons.a: $(CONS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS += $(BUILD)/lib/libmtcons.a
