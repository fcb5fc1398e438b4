# msgids/: MIG message ids to names (host library) and the msgids files the
# build generates with MIG's `-n -list`, in rpctrace's format, from every
# .defs of gnumach-dev and of the project (build/msgids/), compiled into
# the library (build/msgids/builtin.c) for mach_msgname() and friends.
# The generated files live in build/ (not $(BUILD)): the sanitizer build
# compiles the same names without a kernel cache of its own.
MSGIDS_GEN := build/msgids
MSGIDS_KCACHE := build/kernel
MSGIDS_SRCS := msgids/msgids.c
MSGIDS_OBJS := $(MSGIDS_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/$(MSGIDS_GEN)/builtin.o
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

MT_EXTRA += $(MSGIDS_GEN)/.stamp
$(MSGIDS_GEN)/.stamp: msgids/gen-msgids.sh $(MSGIDS_KCACHE)/VERSION $(PROJECT_DEFS)
	msgids/gen-msgids.sh $(MSGIDS_KCACHE)/mig/x86_64-gnu-migcom $(MSGIDS_GEN) \
		$(MSGIDS_KCACHE)/include/x86_64-linux-gnu -- $(PROJECT_DEFS)
	@touch $@
$(MSGIDS_GEN)/builtin.c: msgids/gen-builtin.sh $(MSGIDS_GEN)/.stamp
	msgids/gen-builtin.sh $(MSGIDS_GEN) $@

MT_EXTRA += $(BUILD)/bin/mt-msgids
$(BUILD)/bin/mt-msgids: $(BUILD)/obj/msgids/mt-msgids.o $(BUILD)/lib/libmtmsgids.a \
		$(BUILD)/lib/libmtcommon.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^
