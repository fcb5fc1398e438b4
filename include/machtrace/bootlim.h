/*
 * The boot shim's limits (targets/mach/shim/shim.c), shared with the host
 * that builds its module list (targets/mach/qemu/): freestanding, no libc.
 *
 * The shim takes the kernel and at most MT_SHIM_MAX_MODS more modules
 * (the runtime blob among them), each string MT_SHIM_STR_MAX bytes with
 * its NUL.  A session boots MT_BOOT_MAX_MODULES at most, the runtime blob
 * last, so a user gives MT_USER_MAX_MODULES (--module).
 */
#ifndef MACHTRACE_BOOTLIM_H
#define MACHTRACE_BOOTLIM_H

#define MT_SHIM_MAX_MODS	16
#define MT_SHIM_STR_MAX		1024

#define MT_BOOT_MAX_MODULES	15
#define MT_USER_MAX_MODULES	14	/* a literal: help texts print it */

_Static_assert(MT_USER_MAX_MODULES == MT_BOOT_MAX_MODULES - 1, "one for the runtime");
_Static_assert(MT_BOOT_MAX_MODULES <= MT_SHIM_MAX_MODS, "the shim takes them all");

#endif
