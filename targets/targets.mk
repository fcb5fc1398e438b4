# targets/: what every target shares (target.c); the targets themselves
# have fragments of their own (local/, mach/).
TARGETS_OBJS := $(BUILD)/obj/targets/target.o
$(BUILD)/lib/libmttargets.a: $(TARGETS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS += $(BUILD)/lib/libmttargets.a
