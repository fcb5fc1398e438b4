# Trace output: the CTF writer and reader (output/ctf/), the exporters
# (output/export/), statistics over samples (output/stats/), Mach message
# bodies decoded (output/msg/).
OUT_SRCS := $(wildcard output/ctf/*.c output/export/*.c output/stats/*.c output/msg/*.c)
OUT_OBJS := $(OUT_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/libmtout.a: $(OUT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS += $(BUILD)/lib/libmtout.a
