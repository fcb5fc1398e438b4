# msgids/: MIG message ids to names (host library) and the msgids files the
# build generates with MIG's `-n -list`, in rpctrace's format, from every
# .defs of gnumach-dev and of the project (build/msgids/).
MSGIDS_SRCS := msgids/msgids.c
MSGIDS_OBJS := $(MSGIDS_SRCS:%.c=$(BUILD)/obj/%.o)
MT_LIBS += $(BUILD)/lib/libmtmsgids.a
$(BUILD)/lib/libmtmsgids.a: $(MSGIDS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# The kernel cache holds gnumach-dev's headers and trixie's MIG.
KINC := $(BUILD)/kernel/include/x86_64-linux-gnu
MIGCOM := $(BUILD)/kernel/mig/x86_64-gnu-migcom
PROJECT_DEFS := $(wildcard targets/mach/guest/*.defs)
# One fetch fills the whole cache (it writes VERSION last).
$(MIGCOM):
	scripts/fetch-kernel.sh --cache $(BUILD)/kernel
$(BUILD)/kernel/VERSION: | $(MIGCOM)
	@test -f $@

MT_EXTRA += $(BUILD)/msgids/.stamp
$(BUILD)/msgids/.stamp: msgids/gen-msgids.sh $(MIGCOM) $(BUILD)/kernel/VERSION $(PROJECT_DEFS)
	msgids/gen-msgids.sh $(MIGCOM) $(BUILD)/msgids $(KINC) -- $(PROJECT_DEFS)
	@touch $@

MT_EXTRA += $(BUILD)/bin/mt-msgids
$(BUILD)/bin/mt-msgids: $(BUILD)/obj/msgids/mt-msgids.o $(BUILD)/lib/libmtmsgids.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^
