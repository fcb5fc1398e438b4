# targets/local/: the local target, which hosts the runtime in this process
# (ordinary host code, not probe context) for tests and the -l listing.
# Its mt_plat_* hooks (plat.c), which the hosted runtime calls, are a
# library of their own, linked after the runtime (the Makefile's
# MT_LINK_ORDER).
LOCAL_SRCS := $(filter-out targets/local/plat.c,$(wildcard targets/local/*.c))
LOCAL_OBJS := $(LOCAL_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/libmtlocal.a: $(LOCAL_OBJS) targets/local/local.mk
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $(filter %.o,$^)
$(BUILD)/lib/libmtplat.a: $(BUILD)/obj/targets/local/plat.o
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS += $(BUILD)/lib/libmtlocal.a $(BUILD)/lib/libmtplat.a
