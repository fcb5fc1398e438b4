# make bench: every benchmark, one after the other (each fragment appends
# its step to BENCH_STEPS; running them serially keeps one from loading the
# machine under another), each printing its figures and keeping them in
# $(BENCH_OUT)/STEP.out.  bench/figures.sh then writes docs/figures.md from
# those files, so the table holds what this run measured and nothing else.
#   bench-probe   the runtime's probe-firing cost next to an empty call
#   bench-tools   host-side times and the kernel's probe counts
#   bench-boot    boot time, shim against GRUB (bench/boot.mk)
#   bench-live    tracing cost per IPC round trip (targets/mach/live/live.mk)
.PHONY: bench bench-probe bench-tools
BENCH_OUT := $(BUILD)/bench
BENCH_STEPS := bench-probe bench-tools $(BENCH_STEPS)
# $(call bench_keep,STEP,COMMAND): run COMMAND, keep its output, print it
bench_keep = @mkdir -p $(BENCH_OUT) && { $(2); } > $(BENCH_OUT)/$(1).out && \
	cat $(BENCH_OUT)/$(1).out

bench: $(BUILD)/bin/machtrace
	@rm -f $(BENCH_OUT)/*.out
	@for s in $(BENCH_STEPS); do $(MAKE) --no-print-directory $$s || exit 1; done
	@bench/figures.sh $(BENCH_OUT) > docs/figures.md.new
	@mv docs/figures.md.new docs/figures.md
	@echo "bench: docs/figures.md written from these measurements"

BENCH_PROBE := $(BUILD)/bench/probe_bench
bench-probe: $(BENCH_PROBE)
	$(call bench_keep,probe,$(BENCH_PROBE))
$(BENCH_PROBE): bench/probe_bench.c $(MT_LIBS) $(BUILD)/lib/libmtcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CPPFLAGS) $(HOST_CFLAGS) -Wno-misleading-indentation -o $@ $< \
		$(MT_LINK) $(MT_LDLIBS) -lm
bench-tools: $(BUILD)/bin/machtrace
	$(call bench_keep,tools,bench/tools-bench.sh)
include bench/boot.mk
