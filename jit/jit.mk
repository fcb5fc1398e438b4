# jit/: the probe compiler (host side): verified program -> x86-64 code
# that the GNU Mach blob runs at a site instead of the interpreter.
JIT_SRCS := $(wildcard jit/*.c jit/x86_64/*.c)
JIT_OBJS := $(JIT_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/libmtjit.a: $(JIT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS := $(BUILD)/lib/libmtjit.a $(MT_LIBS)
