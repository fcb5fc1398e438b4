/*
 * ipc: Mach messages on GNU Mach (sdt.h).  Every message is seen once as
 * ipc:::send and, when a receiver dequeues it, once as ipc:::receive,
 * whichever path it takes:
 *
 *   ipc_mqueue_send       every message given to a port's queue or to a
 *                         receiver waiting there: mach_msg's slow path,
 *                         messages to kernel objects sent through it,
 *                         kernel replies and kernel-originated messages
 *                         (notifications, mach_msg_send_from_kernel)
 *   mach_msg_trap         its own paths that bypass ipc_mqueue_send:
 *                         requests to kernel objects it hands straight
 *                         to ipc_kobject_server; the fast send/receive
 *                         that hands the message to a waiting receiver
 *                         with thread_handoff (the common RPC path); the
 *                         same for an exception reply; a kernel reply it
 *                         takes straight from ipc_kobject_server
 *   exception_raise       its fast path hands an exception message to a
 *                         waiting exception server (untested: machload
 *                         raises no exceptions)
 *   ipc_mqueue_receive    every message taken from a queue (or given to
 *                         a waiting receiver by ipc_mqueue_send), at its
 *                         count of the task's received messages
 *
 * The fast paths call nothing there: their sites are source lines of
 * this kernel (SDT_LINE) with the message found through DWARF in a
 * register (sdt_site.vars).  On the fast handoff both probes fire as the
 * receiver runs: args[1] names the sending thread's task, args[2] the
 * receiver's.  Elsewhere the sender is the current thread (for
 * kernel-originated messages the thread the kernel sends in), and
 * args[2] is NULL where the receiver is not yet known.
 */
#include "targets/mach/live/live_int.h"

#define MSG(raw)	{ raw, "struct ipc_kmsg *", "msginfo_t *" }
#define TASK_OF(raw)	{ raw, "struct thread *", "psinfo_t *" }
#define ARGS		{ MSG(0), TASK_OF(1), TASK_OF(2) }
#define CUR_ARGS	{ MSG(0), TASK_OF(MT_ARGMAP_CURTHREAD), TASK_OF(MT_ARGMAP_ZERO) }
#define SITE(fn, w)	{ fn, w, NULL, 0, { NULL } }
#define CALL(fn, c, ...) { fn, SDT_CALL, c, 0, { __VA_ARGS__ } }
#define LINE(fn, l, ...) { fn, SDT_LINE, NULL, l, { __VA_ARGS__ } }

/* mach_msg_trap's fast paths (Debian's gnumach 1.8+git20250702 lines):
   920: fast_send_receive after a handoff, before fast_copyout; 871: the
   handoff to a receiver that cannot take the optimized receive (its own
   continuation dequeues the message through ipc_mqueue_receive); 1376:
   a kernel reply received directly after ipc_kobject_server. */
#define HANDOFF		LINE("mach_msg_trap", 920, "kmsg", "self", "$curthread")
#define HANDOFF_SLOW	LINE("mach_msg_trap", 871, "kmsg", "self", "$curthread")
/* ipc_mqueue_receive's one success path, where both ways of getting a
   message (from the queue, or handed over while waiting) meet: its count
   of the task's received messages; kmsg is about to be stored through
   the out-parameter kmsgp (GCC 16's DWARF loses it there) */
#define DEQUEUED	{ "ipc_mqueue_receive", SDT_MEMBER_INC, "task.messages_received", 0, \
			  { "kmsg|*", NULL, "$curthread" } }
#define EXC_REPLY	CALL("mach_msg_trap", "exception_raise_continue_fast", \
			     "kmsg", "self", "$curthread")
#define KREPLY		LINE("mach_msg_trap", 1376, "kmsg", "$curthread", "$curthread")
/* exception_raise's own fast path: after its thread_handoff to a waiting
   exception server, line 540 (the built message's size check); DWARF
   has lost kmsg there (the code holds it in %rbx) and the sender */
#define EXC_FAST	LINE("exception_raise", 540, "%rbx", NULL, "$curthread")

static const struct sdt_probe ipc_probes[] = {
	{ "ipc_mqueue_send", "send", { SITE("ipc_mqueue_send", SDT_ENTRY) }, CUR_ARGS,
	  "a message is sent to a port (queued or given to a waiting receiver)" },
	{ "mach_msg_trap", "send",
	  { CALL("mach_msg_trap", "ipc_kobject_server", "kmsg", "$curthread"),
	    HANDOFF, HANDOFF_SLOW, EXC_REPLY, KREPLY }, ARGS,
	  "a message is sent on mach_msg_trap's fast paths" },
	{ "exception_raise", "send", { EXC_FAST }, ARGS,
	  "an exception message is handed to a waiting exception server" },
	{ "mach_msg_trap", "send-error",
	  { { "mach_msg_trap", SDT_CALL, "ipc_kmsg_copyout_pseudo", 0, { NULL } } }, CUR_ARGS,
	  "a sent message could not be delivered and returns to its sender" },
	{ "mach_msg_send", "send-error",
	  { { "mach_msg_send", SDT_CALL, "ipc_kmsg_copyout_pseudo", 0, { NULL } } }, CUR_ARGS,
	  "a sent message could not be delivered and returns to its sender" },
	{ "ipc_mqueue_receive", "receive", { DEQUEUED }, ARGS,
	  "a receiver dequeues a message (args[1]: NULL)" },
	{ "mach_msg_trap", "receive", { HANDOFF, EXC_REPLY, KREPLY }, ARGS,
	  "a receiver takes a message on mach_msg_trap's fast paths" },
	{ "exception_raise", "receive", { EXC_FAST }, ARGS,
	  "an exception server takes an exception message handed to it" },
};

const struct sdt_provider sdt_ipc = {
	.name = "ipc",
	.probes = ipc_probes,
	.nprobes = sizeof ipc_probes / sizeof *ipc_probes,
};
