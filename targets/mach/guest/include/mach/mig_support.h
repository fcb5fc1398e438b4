/*
 * What MIG's generated stubs expect from the C library (glibc's
 * <mach/mig_support.h> on the Hurd), for our freestanding tasks:
 * guest/mig_support.c implements it.
 */
#ifndef GUEST_MIG_SUPPORT_H
#define GUEST_MIG_SUPPORT_H

#include <mach/port.h>
#include <mach/message.h>

mach_port_t mig_get_reply_port(void);
void mig_dealloc_reply_port(mach_port_t port);
void mig_put_reply_port(mach_port_t port);
void mig_reply_setup(const mach_msg_header_t *request, mach_msg_header_t *reply);
vm_size_t mig_strncpy(char *dst, const char *src, vm_size_t len);
void *memcpy(void *d, const void *s, unsigned long n);
void *memset(void *d, int c, unsigned long n);

#endif
