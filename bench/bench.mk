# make bench: the runtime's probe-firing cost (bench/probe_bench.c) next to
# an empty function call, plus the boot benchmarks of bench/boot.mk.  The
# figures it prints are recorded in one place, docs/figures.md.
.PHONY: bench bench-probe
BENCH_PROBE := $(BUILD)/bench/probe_bench
bench: bench-probe
bench-probe: $(BENCH_PROBE)
	@$(BENCH_PROBE)
$(BENCH_PROBE): bench/probe_bench.c $(MT_LIBS) $(BUILD)/lib/libmtcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CPPFLAGS) $(HOST_CFLAGS) -Wno-misleading-indentation -o $@ $< \
		-Wl,--start-group $(MT_LIBS) $(BUILD)/lib/libmtcommon.a -Wl,--end-group $(MT_LDLIBS) -lm
include bench/boot.mk
.PHONY: bench-tools
bench: bench-tools
bench-tools: $(BUILD)/bin/machtrace
	@bench/tools-bench.sh
