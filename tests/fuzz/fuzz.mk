# make fuzz [FUZZ_SECONDS=N]: build the libFuzzer harnesses of tests/fuzz
# (clang -fsanitize=fuzzer,address,undefined) and run each for its share
# of N seconds on one core (tests/fuzz/run.sh), seeded from the project's
# tests:
#   compile   the D compiler (-e), seeds tests/d/**
#   run       compile, link, run on the local target compiled and
#             interpreted, the two runs' buffers compared; seeds tests/d/**
#   ctf       the CTF trace reader; seeds traces machtrace records
#   rules     top/health's rules parser; seeds tests/fuzz/seeds/rules
#   grubcfg   the grub.cfg parser of --disk; seeds tests/fuzz/seeds/grubcfg
# Fails on a crash, a sanitizer report, a leak or a difference; the input
# that caused it is left in build/fuzz/NAME/crash-* (reproduce with
# build/fuzz/fuzz_NAME build/fuzz/NAME/crash-...).  The corpora grow in
# build/fuzz/NAME/corpus across runs.  The harnesses link the libraries of
# a FUZZ=1 build (Makefile: sanitizers and coverage, build/fuzz/tree).
FUZZ_SECONDS ?= 30
FUZZ_DIR := build/fuzz
FUZZ_HARNESSES := compile run ctf rules grubcfg

ifdef FUZZ
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(MT_LIBS) $(BUILD)/lib/libmtcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CPPFLAGS) -Itests $(HOST_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(MT_LINK) \
		$(MT_LDLIBS) -fsanitize=fuzzer -lm
.PHONY: fuzz-harnesses
fuzz-harnesses: $(FUZZ_HARNESSES:%=$(BUILD)/fuzz/fuzz_%)
endif

.PHONY: fuzz fuzz-build
fuzz-build: $(BUILD)/bin/machtrace
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-harnesses
	@for h in $(FUZZ_HARNESSES); do \
		ln -sf tree/fuzz/fuzz_$$h $(FUZZ_DIR)/fuzz_$$h || exit 1; done
fuzz: fuzz-build
	@tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(BUILD)/bin/machtrace $(FUZZ_HARNESSES)
