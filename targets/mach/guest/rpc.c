/*
 * Client side of the kernel RPCs our tasks use, laid out as the kernel's
 * MIG stubs expect them (LP64).  A request is built in a 512-byte buffer
 * that also receives the reply; every reply carries {type, RetCode} at
 * 0x20/0x28, and a returned port is at 0x38 (its type at 0x30).
 *
 * Message ids: mach.defs subsystem 2000 (task_create 2007, task_terminate
 * 2008, thread_terminate 2016, thread_set_state 2018, vm_deallocate 2023,
 * thread_create 2061, thread_resume 2063), device.defs 2800 (device_open
 * 2800, device_write_inband 2803), mach_host.defs 2600 (host_reboot 2635).
 */
#include "mach.h"

#define REPLY_PORT_OFF  0x38
#define RETCODE_OFF     0x28

union msgbuf {
	struct msg_header h;
	u8 b[512];
};

struct typed_int {
	struct msg_type type;
	u32 value, pad;
};

struct typed_u64 {
	struct msg_type type;
	u64 value;
};

static void request(union msgbuf *m, mach_port_t reply, mach_port_t target, int id, u32 size)
{
	memset(m, 0, sizeof *m);
	m->h.bits = MACH_MSGH_BITS(MACH_MSG_TYPE_COPY_SEND, MACH_MSG_TYPE_MAKE_SEND_ONCE);
	m->h.size = size;
	m->h.remote = target;
	m->h.local = reply;
	m->h.id = id;
}

static void put_int_as(union msgbuf *m, u32 off, u32 type, u32 value)
{
	struct typed_int *t = (struct typed_int *)(m->b + off);

	t->type.word = MSGT(type, 32);
	t->type.number = 1;
	t->value = value;
}

static void put_int(union msgbuf *m, u32 off, u32 value)
{
	put_int_as(m, off, MACH_MSG_TYPE_INTEGER_32, value);
}

static void put_u64(union msgbuf *m, u32 off, u64 value)
{
	struct typed_u64 *t = (struct typed_u64 *)(m->b + off);

	t->type.word = MSGT(MACH_MSG_TYPE_INTEGER_64, 64);
	t->type.number = 1;
	t->value = value;
}

static kern_return_t rpc(union msgbuf *m, mach_port_t reply)
{
	int id = m->h.id;
	kern_return_t kr;

	kr = mach_msg_trap(m, MACH_SEND_MSG | MACH_RCV_MSG, m->h.size, sizeof *m, reply, 0, 0);
	if (kr)
		return kr;
	if (m->h.id != id + 100)
		return -301;    /* MIG_REPLY_MISMATCH */
	return *(kern_return_t *)(m->b + RETCODE_OFF);
}

static kern_return_t rpc_port(union msgbuf *m, mach_port_t reply, mach_port_t *port)
{
	kern_return_t kr = rpc(m, reply);

	if (!kr)
		*port = *(u32 *)(m->b + REPLY_PORT_OFF);
	return kr;
}

kern_return_t device_open(mach_port_t reply, mach_port_t master, u32 mode,
			  const char *name, mach_port_t *dev)
{
	union msgbuf m;
	struct msg_type *t = (struct msg_type *)(m.b + 0x30);
	u64 n = strlen(name);

	if (n >= 128)
		return -304;    /* MIG_BAD_ARGUMENTS */
	request(&m, reply, master, 2800, 0x38 + 128);
	put_int(&m, 0x20, mode);
	/* dev_name_t = (STRING_C, 8*128): the kernel stub wants the long form */
	t->word = MSGT(MACH_MSG_TYPE_STRING_C, 8 * 128) | MSGT_LONGFORM;
	t->number = 1;
	memcpy(m.b + 0x38, name, n + 1);
	return rpc_port(&m, reply, dev);
}

kern_return_t device_write_inband(mach_port_t reply, mach_port_t dev,
				  const char *data, u32 n, u32 *written)
{
	union msgbuf m;
	struct msg_type *t = (struct msg_type *)(m.b + 0x40);
	kern_return_t kr;

	if (n > 128)
		n = 128;
	request(&m, reply, dev, 2803, 0x48 + ((n + 7) & ~7u));
	put_int(&m, 0x20, 0);           /* mode */
	put_u64(&m, 0x30, 0);           /* recnum */
	t->word = MSGT(MACH_MSG_TYPE_CHAR, 8);
	t->number = n;
	memcpy(m.b + 0x48, data, n);
	kr = rpc(&m, reply);
	if (!kr && written)
		*written = *(u32 *)(m.b + 0x38);
	return kr;
}

kern_return_t vm_deallocate(mach_port_t reply, mach_port_t task, u64 addr, u64 size)
{
	union msgbuf m;

	request(&m, reply, task, 2023, 0x40);
	put_u64(&m, 0x20, addr);
	put_u64(&m, 0x30, size);
	return rpc(&m, reply);
}

kern_return_t task_create(mach_port_t reply, mach_port_t task, int inherit, mach_port_t *child)
{
	union msgbuf m;

	request(&m, reply, task, 2007, 0x30);
	put_int_as(&m, 0x20, MACH_MSG_TYPE_BOOLEAN, (u32)inherit);
	return rpc_port(&m, reply, child);
}

kern_return_t task_terminate(mach_port_t reply, mach_port_t task)
{
	union msgbuf m;

	request(&m, reply, task, 2008, 0x20);
	return rpc(&m, reply);
}

kern_return_t thread_create(mach_port_t reply, mach_port_t task, mach_port_t *thread)
{
	union msgbuf m;

	request(&m, reply, task, 2061, 0x20);
	return rpc_port(&m, reply, thread);
}

kern_return_t thread_set_state(mach_port_t reply, mach_port_t thread,
			       const struct thread_state *st)
{
	union msgbuf m;
	struct msg_type *t = (struct msg_type *)(m.b + 0x30);
	u32 count = sizeof *st / 4;

	request(&m, reply, thread, 2018, 0x38 + sizeof *st);
	put_int(&m, 0x20, THREAD_STATE_FLAVOR);
	/* thread_state_t = array[*:1024] of natural_t */
	t->word = MSGT(MACH_MSG_TYPE_INTEGER_32, 32);
	t->number = count;
	memcpy(m.b + 0x38, st, sizeof *st);
	return rpc(&m, reply);
}

kern_return_t thread_resume(mach_port_t reply, mach_port_t thread)
{
	union msgbuf m;

	request(&m, reply, thread, 2063, 0x20);
	return rpc(&m, reply);
}

kern_return_t thread_terminate(mach_port_t reply, mach_port_t thread)
{
	union msgbuf m;

	request(&m, reply, thread, 2016, 0x20);
	return rpc(&m, reply);
}

kern_return_t host_reboot(mach_port_t reply, mach_port_t host_priv, int options)
{
	union msgbuf m;

	request(&m, reply, host_priv, 2635, 0x30);
	put_int(&m, 0x20, (u32)options);
	return rpc(&m, reply);
}
