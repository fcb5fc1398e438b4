/*
 * sched: DTrace's scheduler probes on GNU Mach (sdt.h).
 *
 * Every switch goes through one of three calls: thread_invoke's
 * switch_context and stack_handoff, and thread_handoff's stack_handoff
 * (the IPC fast path's direct handoff).  off-cpu fires as each starts, in
 * the leaving thread, its arguments describing the next thread; on-cpu
 * fires in the thread that runs next, where it resumes: after the call it
 * made to switch_context, after a stack_handoff (which makes the new
 * thread current on the old stack), or in thread_continue, where a thread
 * starts or resumes on a fresh stack (its continuation).
 *
 * GNU Mach on one processor: cpuinfo_t arguments are left out (curcpu
 * has them); `surrender` (a CPU asked to reschedule by another) has no
 * meaning there and fires when a thread yields the processor instead
 * (swtch, swtch_pri, thread_switch).
 */
#include "targets/mach/live/live_int.h"

#define THREAD(raw)	{ raw, "struct thread *", "lwpsinfo_t *" }
#define TASK_OF(raw)	{ raw, "struct thread *", "psinfo_t *" }
#define SITE(fn, w)	{ fn, w, NULL, { NULL } }
#define CALL(fn, w, c)	{ fn, w, c, { NULL } }

static const struct sdt_probe sched_probes[] = {
	{ "switch_context", "off-cpu", { SITE("switch_context", SDT_ENTRY) },
	  { THREAD(2), TASK_OF(2) }, "the current thread leaves the CPU; args: the next" },
	{ "stack_handoff", "off-cpu", { SITE("stack_handoff", SDT_ENTRY) },
	  { THREAD(1), TASK_OF(1) }, "the current thread leaves the CPU; args: the next" },
	{ "thread_invoke", "on-cpu",
	  { CALL("thread_invoke", SDT_AFTER_CALL, "switch_context"),
	    CALL("thread_invoke", SDT_AFTER_CALL, "stack_handoff") },
	  { { 0 } }, "the current thread has just been given the CPU" },
	{ "thread_handoff", "on-cpu",
	  { CALL("thread_handoff", SDT_AFTER_CALL, "stack_handoff") },
	  { { 0 } }, "the current thread has just been given the CPU" },
	{ "thread_continue", "on-cpu", { SITE("thread_continue", SDT_ENTRY) },
	  { { 0 } }, "the current thread has just been given the CPU" },
	{ "thread_handoff", "handoff",
	  { CALL("thread_handoff", SDT_CALL, "stack_handoff") },
	  { THREAD(1), TASK_OF(1) }, "IPC hands the CPU directly to args[0]" },
	{ "thread_setrun", "enqueue",
	  { CALL("thread_setrun", SDT_CALL, "enqueue_tail") },
	  { THREAD(1), TASK_OF(1) }, "a thread is put on a run queue" },
	{ "rem_runq", "dequeue", { SITE("rem_runq", SDT_ENTRY) },
	  { THREAD(0), TASK_OF(0) }, "a thread is taken off its run queue" },
	{ "choose_thread", "dequeue", { SITE("choose_thread", SDT_RETURN) },
	  { THREAD(1), TASK_OF(1) }, "a thread is chosen from a run queue" },
	{ "assert_wait", "sleep", { SITE("assert_wait", SDT_RETURN) },
	  { { 0 } }, "the current thread is about to sleep (pr_wchan set)" },
	{ "thread_will_wait", "sleep", { SITE("thread_will_wait", SDT_RETURN),
	    SITE("thread_will_wait_with_timeout", SDT_RETURN) },
	  { { 0 } }, "the current thread is about to sleep in IPC" },
	{ "thread_wakeup_prim", "wakeup",
	  { CALL("thread_wakeup_prim", SDT_CALL, "thread_setrun") },
	  { THREAD(0), TASK_OF(0) }, "args[0] is woken up" },
	{ "clear_wait", "wakeup", { CALL("clear_wait", SDT_CALL, "thread_setrun") },
	  { THREAD(0), TASK_OF(0) }, "args[0] is woken up" },
	{ "thread_go", "wakeup", { CALL("thread_go", SDT_CALL, "thread_setrun") },
	  { THREAD(0), TASK_OF(0) }, "args[0] is woken up (IPC)" },
	{ "ast_taken", "preempt", { CALL("ast_taken", SDT_CALL, "thread_block") },
	  { { 0 } }, "the current thread is about to be preempted" },
	{ "set_pri", "change-pri", { SITE("set_pri", SDT_ENTRY) },
	  { THREAD(0), TASK_OF(0), { 1, "int", NULL } },
	  "args[0]'s priority changes to args[2]" },
	{ "swtch", "surrender", { SITE("swtch", SDT_ENTRY), SITE("swtch_pri", SDT_ENTRY),
	    SITE("thread_switch", SDT_ENTRY) },
	  { { 0 } }, "the current thread yields the processor" },
	{ "clock_interrupt", "tick", { SITE("clock_interrupt", SDT_ENTRY) },
	  { { 0 } }, "a clock tick charges the current thread" },
};

const struct sdt_provider sdt_sched = {
	.name = "sched",
	.probes = sched_probes,
	.nprobes = sizeof sched_probes / sizeof *sched_probes,
};
