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
 * The fast paths call nothing there: their sites are what their code
 * does to the message and its port (below), with the message found
 * through DWARF in a register (sdt_site.vars).  On the fast handoff both probes fire as the
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
#define SITE(fn, w)	{ fn, w, NULL, { NULL } }
#define CALL(fn, c, ...) { fn, SDT_CALL, c, { __VA_ARGS__ } }

/*
 * mach_msg_trap's fast paths, found by what they do (no source line):
 * each gives the message its sequence number itself, `seqno =
 * dest_port->ip_seqno++`, and where that number goes tells them apart:
 *   into the message (kmsg->ikm_header.msgh_seqno): the fast handoff,
 *     after thread_handoff, as the receiver (fast_send_receive), and a
 *     kernel reply received straight from ipc_kobject_server;
 *   into the receiver (ith_seqno): the handoff to a receiver that cannot
 *     take the optimized receive (its own continuation then dequeues the
 *     message through ipc_mqueue_receive: a send only).
 * On the kernel reply path self is the current thread.  Where DWARF lost
 * kmsg, it is the message whose msgh_seqno is stored, the argument of
 * ipc_kobject_server or exception_raise_continue_fast (sdt.h).
 */
#define SEQNO(into, kmsg) { "mach_msg_trap", SDT_MEMBER_INC, "ipc_port.ip_seqno>" into, \
			  { kmsg, "self", "$curthread" } }
#define HANDOFF		SEQNO("ipc_kmsg.ikm_header.msgh_seqno", \
			      "kmsg|&ipc_kmsg.ikm_header.msgh_seqno")
#define HANDOFF_SLOW	SEQNO("thread.ith_seqno", "kmsg")
#define EXC_REPLY	CALL("mach_msg_trap", "exception_raise_continue_fast", \
			     "kmsg|exception_raise_continue_fast:1", "self", "$curthread")
/* exception_raise's own fast path: after its thread_handoff to a waiting
   exception server, its check of the server's receive size (the one use
   of ith_rcv_size there).  DWARF may have lost kmsg (trixie's) and the
   sender: kmsg is then the value the too-large branch that follows hands
   to ipc_kmsg_destroy */
#define EXC_FAST	{ "exception_raise", SDT_MEMBER_USE, "thread.saved.receive.rcv_size", \
			  { "kmsg|ipc_kmsg_destroy", NULL, "$curthread" } }
/* ipc_mqueue_receive's one success path, where both ways of getting a
   message (from the queue, or handed over while waiting) meet: its count
   of the task's received messages; kmsg is about to be stored through
   the out-parameter kmsgp (GCC 16's DWARF loses it there) */
#define DEQUEUED	{ "ipc_mqueue_receive", SDT_MEMBER_INC, "task.messages_received", \
			  { "kmsg|*", NULL, "$curthread" } }

static const struct sdt_probe ipc_probes[] = {
	{ "ipc_mqueue_send", "send", { SITE("ipc_mqueue_send", SDT_ENTRY) }, CUR_ARGS,
	  "a message is sent to a port (queued or given to a waiting receiver)" },
	{ "mach_msg_trap", "send",
	  { CALL("mach_msg_trap", "ipc_kobject_server", "kmsg|ipc_kobject_server", "$curthread"),
	    HANDOFF, HANDOFF_SLOW, EXC_REPLY }, ARGS,
	  "a message is sent on mach_msg_trap's fast paths" },
	{ "exception_raise", "send", { EXC_FAST }, ARGS,
	  "an exception message is handed to a waiting exception server" },
	{ "mach_msg_trap", "send-error",
	  { { "mach_msg_trap", SDT_CALL, "ipc_kmsg_copyout_pseudo", { NULL } } }, CUR_ARGS,
	  "a sent message could not be delivered and returns to its sender" },
	{ "mach_msg_send", "send-error",
	  { { "mach_msg_send", SDT_CALL, "ipc_kmsg_copyout_pseudo", { NULL } } }, CUR_ARGS,
	  "a sent message could not be delivered and returns to its sender" },
	{ "ipc_mqueue_receive", "receive", { DEQUEUED }, ARGS,
	  "a receiver dequeues a message (args[1]: NULL)" },
	{ "mach_msg_trap", "receive", { HANDOFF, EXC_REPLY }, ARGS,
	  "a receiver takes a message on mach_msg_trap's fast paths" },
	{ "exception_raise", "receive", { EXC_FAST }, ARGS,
	  "an exception server takes an exception message handed to it" },
};

const struct sdt_provider sdt_ipc = {
	.name = "ipc",
	.probes = ipc_probes,
	.nprobes = sizeof ipc_probes / sizeof *ipc_probes,
};
