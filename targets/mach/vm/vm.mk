# targets/mach/vm: persistent VMs (include/machtrace/vm.h): state
# directories, the VM's QEMU, its QMP and gdbstub clients.
VM_SRCS := $(wildcard targets/mach/vm/*.c)
VM_OBJS := $(VM_SRCS:%.c=$(BUILD)/obj/%.o)

$(BUILD)/lib/libmtvm.a: $(VM_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

MT_LIBS := $(BUILD)/lib/libmtvm.a $(MT_LIBS)

# make bench: attach latency to a running VM (bench/vm_bench.sh)
.PHONY: bench-vm
BENCH_STEPS += bench-vm
bench-vm: $(BUILD)/bin/machtrace $(BUILD)/live/blob.bin $(BUILD)/boot/shim.elf
	$(call bench_keep,vm,bench/vm_bench.sh)
