# Unit tests: tests/unit/AREA/test_*.c, one program each, linked against all
# of machtrace's libraries.  Areas may add more programs to UNIT_TESTS.
UNIT_SRCS := $(wildcard tests/unit/*/test_*.c)
UNIT_TESTS += $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
$(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(MT_LIBS) $(BUILD)/lib/libmtcommon.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(MT_LINK) $(MT_LDLIBS) -lm
.PHONY: unit-build
unit-build: $(UNIT_TESTS)
# Keep the unit tests' objects: tests/suites/statics.sh counts their calls
# (a function a unit test calls is not file-local).
.SECONDARY: $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o)

# machtrace baseline's data and comparison (tools/baseline/bldata.c,
# blcompare.c): tests/unit/tools/test_bldata links their objects.
BL_TEST_OBJS := $(BUILD)/obj/tools/baseline/bldata.o $(BUILD)/obj/tools/baseline/blcompare.o
$(BUILD)/tests/unit/tools/test_bldata: $(BUILD)/obj/tests/unit/tools/test_bldata.o \
		$(BL_TEST_OBJS) $(MT_LIBS) $(BUILD)/lib/libmtcommon.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(BL_TEST_OBJS) $(MT_LINK) $(MT_LDLIBS) -lm

# The blob's user-memory walk (runtime/kernel/kuser.c) built for the host:
# tests/unit/live/test_kuser.c gives it a fake physical memory (lk_phys)
# and the kernel loads it needs.
$(BUILD)/obj/tests/kuser_host.o: runtime/kernel/kuser.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CPPFLAGS) $(HOST_CFLAGS) -DLK_KUSER_HOSTTEST -MMD -MP -c $< -o $@
$(BUILD)/tests/unit/live/test_kuser: $(BUILD)/obj/tests/unit/live/test_kuser.o \
		$(BUILD)/obj/tests/kuser_host.o $(MT_LIBS) $(BUILD)/lib/libmtcommon.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(BUILD)/obj/tests/kuser_host.o $(MT_LINK) $(MT_LDLIBS) -lm

# make stress: the two-CPU stress test at issue 28's full 30 s (make check
# runs it for 10 s)
.PHONY: stress
stress: all
	@MACHTRACE_STRESS_SECONDS=30 tests/e2e/smp_stress.sh
