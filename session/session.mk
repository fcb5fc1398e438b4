# session/: a tracing session (include/machtrace/session.h): the target
# rule, the kernel target behind the compiler's C types, compilation with
# the kernel D library, the consume loop.  Above compiler, link, targets
# and consumer; below cmd/.
SESSION_SRCS := $(wildcard session/*.c)
SESSION_OBJS := $(SESSION_SRCS:%.c=$(BUILD)/obj/%.o)
$(BUILD)/lib/libmtsession.a: $(SESSION_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS += $(BUILD)/lib/libmtsession.a
