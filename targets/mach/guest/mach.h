/*
 * The GNU Mach interface of our freestanding tasks: gnumach-dev's headers,
 * the MIG user stubs generated from its .defs (build/guest/mig/mig_*.h),
 * and the trap stubs of x86_64/start.S.
 */
#ifndef GUEST_MACH_H
#define GUEST_MACH_H

#include <mach/kern_return.h>
#include <mach/port.h>
#include <mach/message.h>
#include <mach/mach_types.h>
#include <mach/mig_errors.h>
#include <mach/mig_support.h>
#include <mach/thread_status.h>
#include <mach/task_info.h>
#include <device/device_types.h>

#include "mig_mach.h"
#include "mig_mach_port.h"
#include "mig_mach_host.h"
#include "mig_device.h"
#include "mig_machload.h"

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long u64;

/* x86_64/start.S (mach_msg_trap is declared by <mach/message.h>) */
mach_port_t mach_reply_port(void);
mach_port_t mach_thread_self(void);
mach_port_t mach_task_self(void);
mach_port_t mach_host_self(void);
kern_return_t trap_vm_allocate(mach_port_t task, u64 *addr, u64 size, int anywhere);
kern_return_t trap_vm_deallocate(mach_port_t task, u64 addr, u64 size);
kern_return_t trap_task_terminate(mach_port_t task);
kern_return_t trap_mach_port_allocate(mach_port_t task, u32 right, mach_port_t *name);
extern char thread_start[];

/* machloadServer.c (MIG): the demux of machload.defs */
boolean_t machload_server(mach_msg_header_t *in, mach_msg_header_t *out);
/* memory_objectServer.c (MIG): the demux of memory_object.defs (pager.c) */
boolean_t memory_object_server(mach_msg_header_t *in, mach_msg_header_t *out);

/* machload.c: entries called from x86_64/start.S and from the MIG demux */
struct worker;
void task_main(long *sp);
void thread_main(struct worker *w);
kern_return_t S_machload_echo(mach_port_t server, int value, machload_text_t text,
			      int *result);
int rt_once(mach_port_t p, u32 i);
kern_return_t send_int(mach_port_t to, u32 value);
long receive_int(mach_port_t port, u32 timeout_ms);

/* pager.c: machload's memory object pager (contend=N) */
void pager_loop(mach_port_t object, mach_port_t told, u32 delay_ms);

/* lib.c */
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
void con_open(mach_port_t device_master);
void con_puts(const char *s);
void con_dec(long v);
void con_hex(u64 v);
void con_flush(void);

#endif
