/*
 * vm and vminfo: GNU Mach's page faults and its VM event counters
 * (sdt.h).
 *
 * vm:::fault fires at each call of vm_fault that starts a fault: the
 * traps' (user_trap: user-mode faults, kernel_trap: kernel-mode ones, as
 * copyin's) and the wiring pseudo-faults' (vm_fault_wire, vm_fault_unwire,
 * with fault type VM_PROT_NONE, as DTrace's softlock faults).  Not at
 * vm_fault's entry: a fault that blocks may give up its stack and resume
 * through the continuation vm_fault_continue, which enters vm_fault again.
 * args[0] is the address vm_fault is given (page-aligned), args[1] the
 * fault type (VM_PROT_*), args[2] the faulting thread's task.
 *
 * vm:::fault-done fires where a fault ends: a fault without continuation
 * (kernel, wiring) returns from vm_fault; a user fault never returns, it
 * ends by calling its continuation user_page_fault_continue(result),
 * directly or after blocking and resuming in vm_fault_continue.  args[0]
 * is the result (kern_return_t), args[1] the fault's latency in ns (from
 * the fault's site, blocked time included: MT_ARGMAP_ELAPSED, 0 if the
 * fault started before tracing), args[2] the task.  A kernel fault inside
 * another fault of the same thread (none is known in GNU Mach) takes the
 * outer one's stamp, and the outer fault-done reads 0.
 *
 * vminfo (DTrace's names) fires at each instruction that counts an event
 * in GNU Mach's global vm_stat (the counters of vm_statistics(); the
 * task's task_events_info counters are incremented next to them): zfod
 * (zero_fill_count), cow_fault, pgin (pageins), pgout (pageouts), pgrec
 * (reactivations), as_fault (faults: every page lookup of a fault,
 * retries included).  As DTrace's, arg0 is the increment and arg1 the
 * counter's address, read before the increment; a probe per function
 * holding an increment.
 */
#include "targets/mach/live/live_int.h"

#define TASK_OF(raw)	{ raw, "struct thread *", "psinfo_t *" }
#define CALL(fn, c)	{ fn, SDT_CALL, c, { NULL } }
#define SITE(fn, w)	{ fn, w, NULL, { NULL } }
#define FAULT_ARGS	{ { 1, "vm_offset_t", NULL }, { 2, "vm_prot_t", NULL }, \
			  TASK_OF(MT_ARGMAP_CURTHREAD) }
#define DONE_ARGS(raw)	{ { raw, "kern_return_t", NULL }, \
			  { MT_ARGMAP_ELAPSED, "uint64_t", NULL }, TASK_OF(MT_ARGMAP_CURTHREAD) }

static const struct sdt_probe vm_probes[] = {
	{ "user_trap", "fault", { CALL("user_trap", "vm_fault") }, FAULT_ARGS,
	  "a page fault in user mode" },
	{ "kernel_trap", "fault", { CALL("kernel_trap", "vm_fault") }, FAULT_ARGS,
	  "a page fault in kernel mode" },
	{ "vm_fault_wire", "fault", { CALL("vm_fault_wire", "vm_fault") }, FAULT_ARGS,
	  "a pseudo-fault wiring a page" },
	{ "vm_fault_unwire", "fault", { CALL("vm_fault_unwire", "vm_fault") }, FAULT_ARGS,
	  "a pseudo-fault unwiring a page" },
	{ "vm_fault", "fault-done", { SITE("vm_fault", SDT_RETURN) }, DONE_ARGS(1),
	  "a fault without continuation (kernel, wiring) ends" },
	{ "user_page_fault_continue", "fault-done",
	  { SITE("user_page_fault_continue", SDT_ENTRY) }, DONE_ARGS(0),
	  "a user fault ends (its continuation)" },
};

const struct sdt_provider sdt_vm = {
	.name = "vm",
	.probes = vm_probes,
	.nprobes = sizeof vm_probes / sizeof *vm_probes,
	.stamp = "fault",
};

#define COUNTER(c)	{ { NULL, SDT_COUNTER, c, { NULL } } }
#define COUNTER_ARGS	{ { 0, "int", NULL }, { 1, "integer_t *", NULL } }

static const struct sdt_probe vminfo_probes[] = {
	{ NULL, "zfod", COUNTER("vm_stat.zero_fill_count"), COUNTER_ARGS,
	  "a page is zero-filled" },
	{ NULL, "cow_fault", COUNTER("vm_stat.cow_faults"), COUNTER_ARGS,
	  "a copy-on-write fault copies a page" },
	{ NULL, "pgin", COUNTER("vm_stat.pageins"), COUNTER_ARGS,
	  "a page is asked of its pager" },
	{ NULL, "pgout", COUNTER("vm_stat.pageouts"), COUNTER_ARGS,
	  "a page is given to its pager" },
	{ NULL, "pgrec", COUNTER("vm_stat.reactivations"), COUNTER_ARGS,
	  "an inactive page is reclaimed (reactivated)" },
	{ NULL, "as_fault", COUNTER("vm_stat.faults"), COUNTER_ARGS,
	  "a fault looks a page up (vm_fault_page, retries included)" },
};

const struct sdt_provider sdt_vminfo = {
	.name = "vminfo",
	.probes = vminfo_probes,
	.nprobes = sizeof vminfo_probes / sizeof *vminfo_probes,
};
