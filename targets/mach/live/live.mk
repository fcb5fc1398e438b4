# targets/mach/live: the live GNU Mach target (host side) and the runtime blob
# injected into the kernel (runtime/*.c + runtime/kernel + runtime/x86_64,
# freestanding, linked at the reserved region's kernel VA).
LIVE_SRCS := $(wildcard targets/mach/live/*.c)
LIVE_OBJS := $(LIVE_SRCS:%.c=$(BUILD)/obj/%.o)

BLOB_CSRCS := $(wildcard runtime/kernel/*.c runtime/x86_64/*.c)
BLOB_OBJS := $(BLOB_CSRCS:%.c=$(BUILD)/obj/blob/%.o) \
	$(BUILD)/obj/blob/runtime/x86_64/entry.o $(RT_KOBJS)

$(BUILD)/obj/blob/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) -Iinclude -I. $(RT_KERNEL_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/blob/runtime/x86_64/entry.o: runtime/x86_64/entry.S include/machtrace/lkabi.h
	@mkdir -p $(dir $@)
	$(CC) -Iinclude -I. -D__ASSEMBLER__ -c $< -o $@

# The blob may use nothing outside itself: link with no undefined symbols.
$(BUILD)/live/blob.elf: $(BLOB_OBJS) runtime/kernel/blob.ld
	@mkdir -p $(dir $@)
	ld -m elf_x86_64 -nostdlib --no-warn-rwx-segments --no-undefined \
		-T runtime/kernel/blob.ld -o $@ $(BLOB_OBJS)
$(BUILD)/live/blob.bin: $(BUILD)/live/blob.elf
	objcopy -O binary $< $@

$(BUILD)/lib/libmtlive.a: $(LIVE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# mt-live: the e2e tests' helper (textcheck)
$(BUILD)/bin/mt-live: $(BUILD)/obj/targets/mach/live/tool/mt-live.o $(MT_LIBS) $(BUILD)/lib/libmtcommon.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(MT_LINK) $(MT_LDLIBS) -lm

.PHONY: blob
blob: $(BUILD)/live/blob.bin
MT_LIBS := $(BUILD)/lib/libmtlive.a $(MT_LIBS)
MT_EXTRA += $(BUILD)/live/blob.bin $(BUILD)/bin/mt-live

-include $(wildcard $(BUILD)/obj/blob/runtime/*/*.d)

# make bench: cycles per IPC round trip without probes / with count() /
# with entry+return probes and a predicate (bench/live_bench.sh): with the
# guest clock from instructions (-icount), the same without the count()
# fast path, and on the host TSC.
.PHONY: bench-live
BENCH_STEPS += bench-live
bench-live: $(BUILD)/bin/machtrace $(BUILD)/live/blob.bin $(BUILD)/boot/shim.elf
	$(call bench_keep,live-icount,MACHTRACE_ICOUNT=shift=0 REPS=1 bench/live_bench.sh)
	$(call bench_keep,live-nofast,MACHTRACE_ICOUNT=shift=0 REPS=1 MACHTRACE_NOFAST=1 \
		bench/live_bench.sh | grep 'count()' | \
		sed 's/count(); }   /count(); } (no fast path)/')
	$(call bench_keep,live-tsc,bench/live_bench.sh)
# make bench: guest instructions per firing of each clause shape on
# fbt::mach_msg_trap (bench/firing_bench.sh, -icount), the round trips'
# ratios, and the interpreter's ns per firing on the host beside them.
.PHONY: bench-firing
BENCH_STEPS += bench-firing
bench-firing: $(BUILD)/bin/machtrace $(BUILD)/live/blob.bin $(BUILD)/boot/shim.elf \
		$(BUILD)/bench/probe_bench
	$(call bench_keep,firing,PROBE_BENCH=$(BUILD)/bench/probe_bench bench/firing_bench.sh)
# make bench: the same per firing on sid's SMP kernel, --cpus 1 beside
# --cpus 2 (issue 28; SMP=1 bench/firing_bench.sh, machload's cpus= word).
.PHONY: bench-smp
BENCH_STEPS += bench-smp
bench-smp: $(BUILD)/bin/machtrace $(BUILD)/live/blob.bin $(BUILD)/boot/shim.elf
	$(call bench_keep,smp,SMP=1 bench/firing_bench.sh)
# make bench: guest instructions per firing of Mach provider clauses
# beside the same logic written with casts (bench/provider_bench.sh).
.PHONY: bench-provider
BENCH_STEPS += bench-provider
bench-provider: $(BUILD)/bin/machtrace $(BUILD)/live/blob.bin $(BUILD)/boot/shim.elf
	$(call bench_keep,provider,bench/provider_bench.sh)
