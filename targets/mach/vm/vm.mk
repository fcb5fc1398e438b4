# targets/mach/vm: persistent VMs (include/machtrace/vm.h): state
# directories, the VM's QEMU, its QMP and gdbstub clients.
VM_SRCS := $(wildcard targets/mach/vm/*.c)
VM_OBJS := $(VM_SRCS:%.c=$(BUILD)/obj/%.o)

$(BUILD)/lib/libmtvm.a: $(VM_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

MT_LIBS := $(BUILD)/lib/libmtvm.a $(MT_LIBS)
