# machtrace top-level build.  Each area contributes a fragment (AREA/*.mk)
# that appends to the variables below; nothing here knows an area's files.
#
#   make            build/bin/machtrace and everything it needs
#   make check      setup, build, every test; last line "N passed, N failed"
#   make demo       setup, build, run the main job
#   make kernel-src build GNU Mach from source (KERNEL_SRC=DIR: one's own)
#   make bench      benchmarks; rewrites docs/figures.md from their output
#   make stress     the two-CPU stress test for 30 s (tests/e2e/smp_stress.sh)
#   make install PREFIX=/usr/local

BUILD   ?= build
PREFIX  ?= /usr/local
# The toolkit: executable D and shell scripts (toolkit/README.md)
TOOLKIT := $(filter-out %.md,$(wildcard toolkit/*))
CC      ?= cc
AR      ?= ar
HOST_CFLAGS ?= -O2 -g -Wall -Wextra -Wno-unused-parameter -Werror=missing-prototypes -std=gnu11
HOST_CPPFLAGS = -Iinclude -I. -D_GNU_SOURCE

# Static libraries linked into machtrace, in link order (fragments append).
MT_LIBS :=
# Extra link flags for machtrace (fragments append, e.g. -ldw).
MT_LDLIBS :=

# make SAN=1: the sanitizer build (ASan + UBSan, every report fatal) of the
# host code and the hosted runtime, in its own tree build/san.  `make check`
# builds it (san-build) and tests/suites/san.sh runs the unit tests, the D tests
# and the conformance suite with it.  clang, because gcc 12's UBSan ignores
# log_path and tests/suites/san.sh finds every report by its file.
CLANG ?= clang
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
ifdef SAN
BUILD := build/san
CC := $(CLANG)
HOST_CFLAGS += -Wno-unknown-warning-option -Wno-ignored-optimization-argument
HOST_CFLAGS += $(SAN_FLAGS)
MT_LDLIBS += $(SAN_FLAGS)
endif
# make FUZZ=1: the same, with libFuzzer's coverage, in build/fuzz/tree: the
# libraries the harnesses of tests/fuzz link (tests/fuzz/fuzz.mk).
ifdef FUZZ
BUILD := build/fuzz/tree
CC := $(CLANG)
SAN_FLAGS += -fsanitize=fuzzer-no-link
HOST_CFLAGS += -Wno-unknown-warning-option -Wno-ignored-optimization-argument
HOST_CFLAGS += $(SAN_FLAGS)
MT_LDLIBS += $(SAN_FLAGS)
endif
# Unit-test programs; each prints "PASS name" / "FAIL name" lines.
UNIT_TESTS :=
# Everything `make` builds besides machtrace (shim, guest programs, blobs).
MT_EXTRA :=

.PHONY: all check demo bench install setup clean unit dtests kernel-src
# machtrace --version; debian/changelog's upstream version is the same
MT_VERSION := $(shell cat VERSION)
all: $(BUILD)/bin/machtrace

include common/common.mk
include compiler/compiler.mk
include link/link.mk
include targets/targets.mk
include targets/local/local.mk
include runtime/runtime.mk
include consumer/consumer.mk
include output/output.mk
include output/report/report.mk
include targets/mach/mach.mk
include jit/jit.mk
include targets/mach/live/live.mk
include targets/mach/vm/vm.mk
include targets/mach/shim/shim.mk
include msgids/msgids.mk
include targets/mach/guest/guest.mk
include session/session.mk
include tools/tools.mk
include cmd/machtrace/cmd.mk
include tests/tests.mk
include bench/bench.mk
include tests/fuzz/fuzz.mk

# The hosted runtime is sanitized too; its objects then also call the
# sanitizers' hooks, which rt-nmcheck must let through.
ifneq ($(SAN)$(FUZZ),)
RT_NOCLANG := -fno-tree-loop-distribute-patterns
RT_FREESTANDING_CFLAGS := $(filter-out $(RT_NOCLANG),$(RT_FREESTANDING_CFLAGS)) $(SAN_FLAGS)
RT_KERNEL_CFLAGS := $(filter-out $(RT_NOCLANG),$(RT_KERNEL_CFLAGS))
RT_NM_ALLOW := ^(mt_plat_|__asan_|__ubsan_|__sanitizer_|__sancov_|__start___sancov|__stop___sancov)
endif

all: $(MT_EXTRA)

# The libraries in link order, callers before what they call.  ld reads
# each once (no --start-group), so a call from a library into one before
# it (an upward call between folders, a cycle) is an undefined reference
# when it is written; tests/suites/layers.sh checks each layer alone.  The
# one call upward by design, the hosted runtime's mt_plat_* hooks, is a
# library of its own (libmtplat.a, targets/local/plat.c) after the runtime.
MT_LINK_ORDER := tools session report out cons live vm target targets local cc link msgids rt plat jit common
MT_LINK = $(patsubst %,$(BUILD)/lib/libmt%.a,$(MT_LINK_ORDER))
MT_LINK_MISSING := $(filter-out $(MT_LINK) $(BUILD)/lib/libmtcommon.a,$(MT_LIBS))
ifneq ($(MT_LINK_MISSING),)
$(error MT_LINK_ORDER lacks $(MT_LINK_MISSING))
endif

# MT_LIBS is complete only after every fragment: a rule written in a
# fragment sees the libraries appended before it, so the helpers linked
# against all of them get the whole list here (else make -j races ld).
$(BUILD)/bin/mt-live: $(MT_LIBS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CPPFLAGS) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

setup:
	@scripts/setup.sh

# make kernel-src: GNU Mach built from source into $(BUILD)/kernel-src/gnumach
# (../shared/gnumach's tarball, or KERNEL_SRC=DIR, a checkout of one's own);
# trace it with machtrace --kernel $(BUILD)/kernel-src/gnumach.
KERNEL_SRC ?=
kernel-src: setup
	@scripts/kernel-src.sh --out $(BUILD)/kernel-src $(if $(KERNEL_SRC),--dir $(KERNEL_SRC))

# make check and make demo build in parallel, one job per core.
JOBS ?= $(shell nproc)

check: setup
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@$(MAKE) --no-print-directory -j$(JOBS) unit-build
	@$(MAKE) --no-print-directory -j$(JOBS) san-build
	@tests/run-all.sh

.PHONY: san-build
san-build:
	@$(MAKE) --no-print-directory SAN=1 build/san/bin/machtrace unit-build

demo: setup
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@scripts/demo.sh

# The installed layout (FHS): the programs in bin, what machtrace loads at
# run time in lib/machtrace (found from bin/../lib/machtrace; the kernel is
# fetched into the user's cache: targets/mach/qemu/paths.c), the man pages,
# the bash completion.  DESTDIR stages it (debian/rules does).
LIBDIR := $(PREFIX)/lib/machtrace
MANDIR := $(PREFIX)/share/man
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/boot $(DESTDIR)$(LIBDIR)/guest \
		$(DESTDIR)$(LIBDIR)/live $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(BUILD)/bin/machtrace $(DESTDIR)$(PREFIX)/bin/machtrace
	install -m 755 $(TOOLKIT) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(BUILD)/boot/shim.elf $(DESTDIR)$(LIBDIR)/boot/
	install -m 755 $(BUILD)/guest/machload $(DESTDIR)$(LIBDIR)/guest/
	install -m 644 $(BUILD)/live/blob.bin $(DESTDIR)$(LIBDIR)/live/
	install -m 755 scripts/fetch-kernel.sh $(DESTDIR)$(LIBDIR)/
	install -m 644 docs/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	for t in $(notdir $(TOOLKIT)); do \
		echo '.so man1/machtrace-toolkit.1' >$(DESTDIR)$(MANDIR)/man1/$$t.1; done
	install -m 644 completion/machtrace.bash $(DESTDIR)$(BASHCOMPDIR)/machtrace

# $(BUILD)/deb/machtrace_VERSION_amd64.deb: dpkg-buildpackage in a copy of
# the checkout (it writes into ..) that reuses this build tree, so only
# what is out of date gets built; debian/rules runs make install.
DEB_DIR := $(BUILD)/deb
.PHONY: deb
deb: all
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src/build
	tar -cf - --exclude=./build --exclude=./.git . | tar -xf - -C $(DEB_DIR)/src
	tar -C $(BUILD) -cf - --exclude=./deb --exclude=./san . | tar -xf - -C $(DEB_DIR)/src/build
	cd $(DEB_DIR)/src && dpkg-buildpackage -us -uc -b
	rm -rf $(DEB_DIR)/src

# Everything under $(BUILD) but the kernel cache (scripts/fetch-kernel.sh).
clean:
	find $(BUILD) -mindepth 1 -maxdepth 1 ! -name kernel ! -name kernels -exec rm -rf {} +

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
