/*
 * lockstat: DTrace's lock probes on GNU Mach's locks (sdt.h).
 *
 * Complex locks (kern/lock.c: struct lock, the sleeping reader/writer
 * locks of vm_map, the IPC space, ...) exist on every kernel:
 *   lock-acquire fires as a thread takes one, at the entry of lock_write
 *     (probefunc lock_write: as a writer) or lock_read (as a reader).  A
 *     thread that finds the lock busy then sleeps (lock-block) before it
 *     holds it: unlike DTrace's, which fires once the lock is held, a
 *     hold time measured from lock-acquire includes that wait (the
 *     toolkit's lockstat subtracts it).  lock_try_* and upgrades are not
 *     counted.
 *   lock-block fires when a thread that slept waiting for a lock wakes
 *     (after each thread_sleep in lock_write, lock_read and
 *     lock_read_to_write: a waiter may sleep more than once), args[1] the
 *     ns it slept, from the lock-sleep before it (MT_ARGMAP_ELAPSED).
 *   lock-sleep (no DTrace twin) fires as it goes to sleep.
 *   lock-release fires at the entry of lock_done, which ends a read or
 *     write hold.
 * args[0] is the lock; its symbol (sym(arg0), when it is a global or in
 * one) and the caller are the tool's.
 *
 * Simple locks spin on an SMP kernel only.  Debian's inlines them
 * (i386/i386/lock.h: an xchg loop at every use): prov_spin.c finds those
 * in the text.  spin-acquire and spin-release here are for a kernel built
 * with MACH_SLOCKS, whose _simple_lock and _simple_unlock are functions.
 */
#include "targets/mach/live/live_int.h"

#define LOCK(raw)	{ raw, "struct lock *", NULL }
#define SIMPLE(raw)	{ raw, "struct slock *", NULL }
#define SITE(fn, w)	{ fn, w, NULL, { NULL } }
#define SLEEP(fn, w)	{ fn, w, "thread_sleep", { "l" } }
#define SLEEPS(w)	{ SLEEP("lock_write", w), SLEEP("lock_read", w), \
			  SLEEP("lock_read_to_write", w) }

static const struct sdt_probe lockstat_probes[] = {
	{ "lock_write", "lock-acquire", { SITE("lock_write", SDT_ENTRY) }, { LOCK(0) },
	  "a thread takes args[0] as its writer" },
	{ "lock_read", "lock-acquire", { SITE("lock_read", SDT_ENTRY) }, { LOCK(0) },
	  "a thread takes args[0] as a reader" },
	{ "lock_done", "lock-release", { SITE("lock_done", SDT_ENTRY) }, { LOCK(0) },
	  "a thread lets go of args[0]" },
	{ NULL, "lock-sleep", SLEEPS(SDT_CALL), { LOCK(0) },
	  "a thread goes to sleep waiting for args[0]" },
	{ NULL, "lock-block", SLEEPS(SDT_AFTER_CALL),
	  { LOCK(0), { MT_ARGMAP_ELAPSED, "uint64_t", NULL } },
	  "a thread wakes from sleeping args[1] ns for args[0]" },
	{ "_simple_lock", "spin-acquire", { SITE("_simple_lock", SDT_ENTRY) }, { SIMPLE(0) },
	  "a simple lock is taken (MACH_SLOCKS kernels)" },
	{ "_simple_unlock", "spin-release", { SITE("_simple_unlock", SDT_ENTRY) },
	  { SIMPLE(0) }, "a simple lock is let go (MACH_SLOCKS kernels)" },
};

const struct sdt_provider sdt_lockstat = {
	.name = "lockstat",
	.probes = lockstat_probes,
	.nprobes = sizeof lockstat_probes / sizeof *lockstat_probes,
	.stamp = "lock-sleep",
};
