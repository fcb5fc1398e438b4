# The machtrace command.
CMD_SRCS := $(wildcard cmd/machtrace/*.c)
CMD_OBJS := $(CMD_SRCS:%.c=$(BUILD)/obj/%.o)
MT_ALL_LIBS = $(MT_LIBS) $(BUILD)/lib/libmtcommon.a
$(BUILD)/bin/machtrace: $(CMD_OBJS) $(MT_ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(CMD_OBJS) $(MT_LINK) $(MT_LDLIBS) -lm
# machtrace --version prints the top-level VERSION
$(BUILD)/obj/cmd/machtrace/main.o: VERSION
$(BUILD)/obj/cmd/machtrace/main.o: HOST_CPPFLAGS += -DMT_VERSION='"$(MT_VERSION)"'
