/*
 * Small stable numbers for kernel objects (GNU Mach's tasks and threads
 * have no ids): a fixed-size open-addressing table from (address,
 * creation stamp) to a number handed out in order of first sight.  Probe
 * context: no allocation (the caller gives the storage), no locks (the
 * blob runs probes with interrupts off on one CPU, so one writer at a
 * time).  An address seen again with another stamp is a new object that
 * reuses freed memory: it gets a new number.  When the table is full a
 * new object's number is its address (a kernel address, never a small
 * number), so numbers stay unique.
 */
#ifndef MT_RT_IDTAB_H
#define MT_RT_IDTAB_H

#include <stdint.h>

#define MT_IDENT_NDATA	3

struct mt_ident {
	uint64_t addr;			/* 0: free slot */
	uint64_t stamp;			/* creation stamp */
	int64_t id;
	uint32_t aux;			/* the caller's (e.g. a name index) */
	uint32_t pad;
	uint64_t data[MT_IDENT_NDATA];	/* the caller's (a thread's virtual
					   clock), zero when created */
};

struct mt_idtab {
	struct mt_ident *e;
	uint32_t cap;			/* a power of two */
	uint32_t n;			/* slots used */
	int64_t next;			/* the next number handed out */
};

void mt_idtab_init(struct mt_idtab *t, struct mt_ident *storage,
		   uint32_t cap, int64_t first);
/*
 * The entry of (addr, stamp), created with the next number (or with `id`
 * when id >= 0) when new; NULL when addr is 0 or the table is full.
 * *isnew tells whether it was created (may be NULL).
 */
struct mt_ident *mt_idtab_enter(struct mt_idtab *t, uint64_t addr,
				uint64_t stamp, int64_t id, int *isnew);
/* The entry of addr whatever its stamp, NULL if none (nothing created). */
struct mt_ident *mt_idtab_find(struct mt_idtab *t, uint64_t addr);
/* Forget the object at addr (it was destroyed): its address may come back
   as a new object, even within the stamp's resolution. */
void mt_idtab_forget(struct mt_idtab *t, uint64_t addr);
/* The number of (addr, stamp): -1 for addr 0, addr itself when full. */
int64_t mt_idtab_id(struct mt_idtab *t, uint64_t addr, uint64_t stamp);

#endif
