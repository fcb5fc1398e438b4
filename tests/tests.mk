# Unit tests: tests/unit/AREA/test_*.c, one program each, linked against all
# of machtrace's libraries.  Areas may add more programs to UNIT_TESTS.
UNIT_SRCS := $(wildcard tests/unit/*/test_*.c)
UNIT_TESTS += $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/unit/%)
$(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(MT_LIBS) $(BUILD)/lib/libmtcommon.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< -Wl,--start-group $(MT_LIBS) $(BUILD)/lib/libmtcommon.a -Wl,--end-group $(MT_LDLIBS) -lm
.PHONY: unit-build
unit-build: $(UNIT_TESTS)
# Keep the unit tests' objects: tests/suites/statics.sh counts their calls
# (a function a unit test calls is not file-local).
.SECONDARY: $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o)
