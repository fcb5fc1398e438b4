/*
 * machload's memory object pager (contend=N): a port of machload is the
 * memory object of a region it maps, and a thread of machload answers the
 * kernel's requests for it through MIG's memory_object server stub.  Each
 * page asked for (memory_object_data_request) is first told to the port
 * given to pager_loop, then answered, pager_delay_ms later, as a zero page
 * (memory_object_data_unavailable): until then the faulting thread sleeps
 * in the kernel, holding whatever the fault's caller holds.
 */
#include "mach.h"
#include "mig_memory_object_server.h"

#include <mach/memory_object.h>

/* MIG's interface fixes the routines' parameters; most go unused here. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

struct pager {
	mach_port_t told;	/* a send right: each request's offset */
	mach_port_t idle;	/* received on to wait */
	u32 delay_ms;
};

/* The one pager of machload (pager_loop's thread). */
static struct pager pager;

kern_return_t memory_object_init(mach_port_t object, mach_port_t control, mach_port_t name,
				 vm_size_t page_size)
{
	return memory_object_ready(control, 0, MEMORY_OBJECT_COPY_NONE);
}

kern_return_t memory_object_data_request(mach_port_t object, mach_port_t control,
					 vm_offset_t offset, vm_size_t length, vm_prot_t access)
{
	send_int(pager.told, (u32)(offset / 4096));
	receive_int(pager.idle, pager.delay_ms);
	return memory_object_data_unavailable(control, offset, length);
}

/* The requests a zero-filling pager of one mapping has nothing to do for. */
kern_return_t memory_object_terminate(mach_port_t object, mach_port_t control,
				      mach_port_t name)
{
	return KERN_SUCCESS;
}

kern_return_t memory_object_copy(mach_port_t object, mach_port_t control, vm_offset_t offset,
				 vm_size_t length, mach_port_t new_object)
{
	return KERN_SUCCESS;
}

kern_return_t memory_object_data_unlock(mach_port_t object, mach_port_t control,
					vm_offset_t offset, vm_size_t length, vm_prot_t access)
{
	return KERN_SUCCESS;
}

kern_return_t memory_object_lock_completed(mach_port_t object, mach_port_t control,
					   vm_offset_t offset, vm_size_t length)
{
	return KERN_SUCCESS;
}

kern_return_t memory_object_supply_completed(mach_port_t object, mach_port_t control,
					     vm_offset_t offset, vm_size_t length,
					     kern_return_t result, vm_offset_t error_offset)
{
	return KERN_SUCCESS;
}

kern_return_t memory_object_data_return(mach_port_t object, mach_port_t control,
					vm_offset_t offset, vm_offset_t data,
					mach_msg_type_number_t count, boolean_t dirty,
					boolean_t kernel_copy)
{
	trap_vm_deallocate(mach_task_self(), data, count);
	return KERN_SUCCESS;
}

kern_return_t memory_object_change_completed(mach_port_t object, boolean_t may_cache,
					     memory_object_copy_strategy_t strategy)
{
	return KERN_SUCCESS;
}

/*
 * Serve object forever (the creator terminates the thread); told gets
 * each requested page's index.  Every memory_object routine is a
 * simpleroutine: nothing is sent back.
 */
void pager_loop(mach_port_t object, mach_port_t told, u32 delay_ms)
{
	union {
		mach_msg_header_t h;
		u8 b[512];
	} in, out;

	pager = (struct pager){ told, mach_reply_port(), delay_ms };
	for (;;)
		if (mach_msg(&in.h, MACH_RCV_MSG, 0, sizeof in, object, 0, 0) == 0)
			memory_object_server(&in.h, &out.h);
}
