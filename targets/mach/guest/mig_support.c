/*
 * The C-library side of MIG's stubs (glibc's mach/mig-reply.c,
 * mig-support.c and mach_msg.c), freestanding.
 *
 * One reply port per task: only the task's first thread calls user stubs
 * (the threads it starts only use mach_msg), so no per-thread storage.
 */
#include "mach.h"

static mach_port_t reply_port;

mach_port_t mig_get_reply_port(void)
{
	if (reply_port == MACH_PORT_NULL)
		reply_port = mach_reply_port();
	return reply_port;
}

/*
 * A stub gives the port back after a failed or mismatched exchange: a
 * late reply may still arrive on it, so the next RPC takes a new one (the
 * old name is left behind, as a task of ours makes few such errors).
 */
void mig_dealloc_reply_port(mach_port_t port)
{
	if (port == reply_port)
		reply_port = MACH_PORT_NULL;
}

void mig_put_reply_port(mach_port_t port)
{
	(void)port;
}

void mig_reply_setup(const mach_msg_header_t *request, mach_msg_header_t *reply)
{
	reply->msgh_bits = MACH_MSGH_BITS(MACH_MSGH_BITS_REMOTE(request->msgh_bits), 0);
	reply->msgh_size = sizeof(mig_reply_header_t);
	reply->msgh_remote_port = request->msgh_local_port;
	reply->msgh_local_port = MACH_PORT_NULL;
	reply->msgh_seqno = 0;
	reply->msgh_id = request->msgh_id + 100;
}

/* Copies at most len bytes of src, NUL included; the length copied less the NUL. */
vm_size_t mig_strncpy(char *dst, const char *src, vm_size_t len)
{
	vm_size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len - 1 && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
	return i;
}

/* glibc retries interrupted sends and receives; the bootstrap task is never interrupted. */
mach_msg_return_t mach_msg(mach_msg_header_t *msg, mach_msg_option_t option,
			   mach_msg_size_t send_size, mach_msg_size_t rcv_size,
			   mach_port_name_t rcv_name, mach_msg_timeout_t timeout,
			   mach_port_name_t notify)
{
	return mach_msg_trap((mach_msg_user_header_t *)msg, option, send_size, rcv_size,
			     rcv_name, timeout, notify);
}
