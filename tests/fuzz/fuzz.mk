# make fuzz [FUZZ_SECONDS=N]: build the libFuzzer harness of the compiler
# (tests/fuzz/fuzz_compile.c, clang -fsanitize=fuzzer,address,undefined)
# and run it for N seconds on one core, seeded with the project's D tests
# (tests/d/**).  Fails on a crash, a sanitizer report or a leak; the input
# that caused it is left in build/fuzz/crash-* (reproduce with
# build/fuzz/fuzz_compile build/fuzz/crash-...).  The corpus grows in
# build/fuzz/corpus across runs.
FUZZ_SECONDS ?= 30
FUZZ_DIR := build/fuzz
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SRCS := tests/fuzz/fuzz_compile.c $(wildcard compiler/*.c) $(wildcard common/*.c)
FUZZ_OBJS := $(FUZZ_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CLANG) $(HOST_CPPFLAGS) -std=gnu11 -Wall -Wno-unused-parameter $(FUZZ_FLAGS) \
		-MMD -MP -c $< -o $@

$(FUZZ_DIR)/fuzz_compile: $(FUZZ_OBJS)
	$(CLANG) $(FUZZ_FLAGS) -o $@ $^ -lm

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_DIR)/fuzz_compile
fuzz: fuzz-build
	@tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

-include $(wildcard $(FUZZ_DIR)/obj/*/*.d $(FUZZ_DIR)/obj/tests/fuzz/*.d)
