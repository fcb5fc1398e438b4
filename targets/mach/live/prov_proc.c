/*
 * proc: DTrace's process probes on GNU Mach (sdt.h).  A Mach task is the
 * process (psinfo_t), a Mach thread the lwp (lwpsinfo_t).
 *
 * create fires once per task task_create_kernel makes, at its call of
 * ipc_task_enable(new_task): the task is complete (named, in its
 * processor set) and in a register, while the out-parameter is not yet
 * written.  lwp-create likewise at thread_create's ipc_thread_enable(new
 * thread).  Both fire in the creator, as DTrace's do.
 *
 * A task dies once, in task_terminate, past the check that it is still
 * active: exit fires at its call of task_dowait(task), which both of
 * task_terminate's branches (the task itself or another) reach exactly
 * once per task.  A thread dies by one of three paths, each guarded by the
 * thread's `active` flag so that exactly one of them takes it:
 *   thread_terminate of another thread: at its call of thread_halt;
 *   thread_force_terminate (task_terminate's): at its thread_deallocate,
 *     called only when it found the thread active;
 *   a thread terminating itself: on its way out of the kernel, in
 *     thread_halt_self's AST_TERMINATE branch (its ipc_thread_terminate),
 *     in the dying thread itself.
 *
 * No Mach meaning: exec, signals (signal-send, -handle, -clear), start and
 * the parent/child wait protocol live in the Hurd's servers (exec, proc,
 * glibc), not in the kernel; proc:::start/exec* are not offered.
 */
#include "targets/mach/live/live_int.h"

#define THREAD(raw)	{ raw, "struct thread *", "lwpsinfo_t *" }
#define TASK_OF(raw)	{ raw, "struct thread *", "psinfo_t *" }
#define TASK(raw)	{ raw, "struct task *", "psinfo_t *" }
#define CALL(fn, c)	{ fn, SDT_CALL, c, { NULL } }

static const struct sdt_probe proc_probes[] = {
	{ "task_create_kernel", "create", { CALL("task_create_kernel", "ipc_task_enable") },
	  { TASK(0) }, "a task is created; args[0]: the new task" },
	{ "task_terminate", "exit", { CALL("task_terminate", "task_dowait") },
	  { TASK(0) }, "a task is terminated; args[0]: the dying task" },
	{ "thread_create", "lwp-create", { CALL("thread_create", "ipc_thread_enable") },
	  { THREAD(0), TASK_OF(0) }, "a thread is created; args: the new thread and its task" },
	{ "thread_terminate", "lwp-exit", { CALL("thread_terminate", "thread_halt") },
	  { THREAD(0), TASK_OF(0) }, "another thread is terminated; args: the dying thread" },
	{ "thread_force_terminate", "lwp-exit",
	  { CALL("thread_force_terminate", "thread_deallocate") },
	  { THREAD(0), TASK_OF(0) }, "task_terminate ends one of its threads; args: it" },
	{ "thread_halt_self", "lwp-exit", { CALL("thread_halt_self", "ipc_thread_terminate") },
	  { THREAD(0), TASK_OF(0) }, "the current thread, terminating itself, leaves the kernel" },
};

const struct sdt_provider sdt_proc = {
	.name = "proc",
	.probes = proc_probes,
	.nprobes = sizeof proc_probes / sizeof *proc_probes,
};
