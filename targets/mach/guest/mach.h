/*
 * The GNU Mach interface of our freestanding tasks: trap stubs and a small
 * MIG-compatible RPC layer (LP64 message layout of the trixie kernel).
 */
#ifndef GUEST_MACH_H
#define GUEST_MACH_H

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long u64;
typedef int kern_return_t;
typedef u32 mach_port_t;

#define KERN_SUCCESS            0
#define MACH_RCV_TIMED_OUT      0x10004003

#define MACH_SEND_MSG           0x1
#define MACH_RCV_MSG            0x2
#define MACH_RCV_TIMEOUT        0x100

#define MACH_PORT_RIGHT_RECEIVE 1

#define MACH_MSG_TYPE_BOOLEAN           0
#define MACH_MSG_TYPE_INTEGER_32        2
#define MACH_MSG_TYPE_CHAR              8
#define MACH_MSG_TYPE_INTEGER_64        11
#define MACH_MSG_TYPE_STRING_C          12
#define MACH_MSG_TYPE_COPY_SEND         19
#define MACH_MSG_TYPE_MAKE_SEND         20
#define MACH_MSG_TYPE_MAKE_SEND_ONCE    21

#define MACH_MSGH_BITS(remote, local)   ((remote) | ((local) << 8))

/*
 * LP64 message header: 32 bytes, port names zero-extended in 8-byte slots.
 * LP64 type descriptor: 8 bytes {name:8 size:16 unused:5 inline:1
 * longform:1 deallocate:1; number:32}; every datum is 8-byte aligned.
 */
struct msg_header {
	u32 bits, size;
	u64 remote, local;
	u32 seqno;
	int id;
};

struct msg_type {
	u32 word;
	u32 number;
};

#define MSGT_INLINE     (1u << 29)
#define MSGT_LONGFORM   (1u << 30)
#define MSGT(name, bits) ((u32)(name) | ((u32)(bits) << 8) | MSGT_INLINE)

/* x86_64 i386_THREAD_STATE (flavor 1) of the trixie kernel: 168 bytes. */
struct thread_state {
	u64 r8, r9, r10, r11, r12, r13, r14, r15;
	u64 rdi, rsi, rbp, rsp, rbx, rdx, rcx, rax, rip;
	u32 cs, pad0;
	u64 rfl, ursp;
	u32 ss, pad1;
};
#define THREAD_STATE_FLAVOR 1

/* x86_64/start.S */
kern_return_t mach_msg_trap(void *msg, int option, u32 send_size, u32 rcv_size,
			    mach_port_t rcv_name, u32 timeout, mach_port_t notify);
mach_port_t mach_reply_port(void);
mach_port_t mach_thread_self(void);
mach_port_t mach_task_self(void);
mach_port_t mach_host_self(void);
kern_return_t trap_vm_allocate(mach_port_t task, u64 *addr, u64 size, int anywhere);
kern_return_t trap_vm_deallocate(mach_port_t task, u64 addr, u64 size);
kern_return_t trap_task_terminate(mach_port_t task);
kern_return_t trap_mach_port_allocate(mach_port_t task, u32 right, mach_port_t *name);
extern char thread_start[];

/* rpc.c: each call sends a request and waits for the reply on `reply` */
kern_return_t device_open(mach_port_t reply, mach_port_t master, u32 mode,
			  const char *name, mach_port_t *dev);
kern_return_t device_write_inband(mach_port_t reply, mach_port_t dev,
				  const char *data, u32 n, u32 *written);
kern_return_t vm_deallocate(mach_port_t reply, mach_port_t task, u64 addr, u64 size);
kern_return_t task_create(mach_port_t reply, mach_port_t task, int inherit,
			  mach_port_t *child);
kern_return_t task_terminate(mach_port_t reply, mach_port_t task);
kern_return_t thread_create(mach_port_t reply, mach_port_t task, mach_port_t *thread);
kern_return_t thread_set_state(mach_port_t reply, mach_port_t thread,
			       const struct thread_state *st);
kern_return_t thread_resume(mach_port_t reply, mach_port_t thread);
kern_return_t thread_terminate(mach_port_t reply, mach_port_t thread);
kern_return_t host_reboot(mach_port_t reply, mach_port_t host_priv, int options);

/* lib.c */
void *memset(void *d, int c, u64 n);
void *memcpy(void *d, const void *s, u64 n);
u64 strlen(const char *s);
int streq(const char *a, const char *b);
const char *prefix(const char *s, const char *p);
u64 atou(const char *s);
static inline u64 rdtsc(void)
{
	u32 lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi));
	return lo | (u64)hi << 32;
}

/* console.c: buffered console output through device_write_inband */
void con_open(mach_port_t reply, mach_port_t device_master);
void con_puts(const char *s);
void con_dec(long v);
void con_hex(u64 v);
void con_flush(void);

#endif
