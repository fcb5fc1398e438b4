# machtrace top-level build.  Each area contributes a fragment (AREA/*.mk)
# that appends to the variables below; nothing here knows an area's files.
#
#   make            build/bin/machtrace and everything it needs
#   make check      setup, build, every test; last line "N passed, N failed"
#   make demo       setup, build, run the main job
#   make bench      benchmarks, printed as side-by-side ratios
#   make install PREFIX=/usr/local

BUILD   ?= build
PREFIX  ?= /usr/local
CC      ?= cc
AR      ?= ar
HOST_CFLAGS ?= -O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11
HOST_CPPFLAGS = -Iinclude -I. -D_GNU_SOURCE

# Static libraries linked into machtrace, in link order (fragments append).
MT_LIBS :=
# Extra link flags for machtrace (fragments append, e.g. -ldw).
MT_LDLIBS :=
# Unit-test programs; each prints "PASS name" / "FAIL name" lines.
UNIT_TESTS :=
# Everything `make` builds besides machtrace (shim, guest programs, blobs).
MT_EXTRA :=

.PHONY: all check demo bench install setup clean unit dtests
all: $(BUILD)/bin/machtrace

include common/common.mk
include compiler/compiler.mk
include link/link.mk
include targets/targets.mk
include targets/local/local.mk
include runtime/runtime.mk
include consumer/consumer.mk
-include targets/mach/mach.mk
-include targets/mach/live/live.mk
-include targets/mach/shim/shim.mk
-include targets/mach/guest/guest.mk
include cmd/machtrace/cmd.mk
include tests/tests.mk
-include bench/bench.mk

all: $(MT_EXTRA)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CPPFLAGS) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

setup:
	@scripts/setup.sh

check: setup
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory unit-build
	@tests/run-all.sh

demo: setup
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/bin/machtrace $(DESTDIR)$(PREFIX)/bin/machtrace

# Everything under $(BUILD) but the kernel cache (scripts/fetch-kernel.sh).
clean:
	find $(BUILD) -mindepth 1 -maxdepth 1 ! -name kernel -exec rm -rf {} +

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
