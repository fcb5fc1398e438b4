/*
 * The GNU Mach platform of the runtime (probe context, freestanding).
 * Everything the blob keeps is in `lk` (blob .bss) or in the reserved
 * region; nothing here calls the kernel.
 */
#ifndef MT_RT_KERN_H
#define MT_RT_KERN_H

#include <stdint.h>
#include "machtrace/runtime.h"
#include "machtrace/lkabi.h"
#include "runtime/x86_64/x86.h"

/* What a firing hands mt_plat_* through mt_pctx.plat. */
struct lk_fire {
	struct lk_regs *r;
	uint64_t pc;			/* probe address */
	uint64_t sp;			/* stack pointer at the probe (-> ret addr) */
	uint64_t fp;			/* frame pointer for stack() */
};

/* Blob state: written by the blob only, in probe context with IF = 0. */
struct lk_glob {
	struct lk_blob_hdr *hdr;
	struct lk_ctl *ctl;
	struct lk_site *sites;		/* sorted by addr (host sorts) */
	uint32_t nsites;
	struct mt_cb *cb;		/* NULL until the runtime is initialised */
	uint64_t resv_va, resv_end;
	uint64_t area_va, area_end;
	uint64_t tsc_mult;		/* ns = (tsc * tsc_mult) >> 32 */
	uint64_t hb_last, hb_tsc;	/* deadman: last heartbeat seen, when */
	uint64_t deadman_tsc;
	int tracing;
	uint32_t begin_probe, end_probe;	/* image probe index + 1 */
};
extern struct lk_glob lk;

#define LK_KVA(pa)	((pa) + LK_KERNEL_MAP_BASE)

uint64_t lk_ns(uint64_t tsc);
/* kplat.c */
int lk_load64(uint64_t addr, uint64_t *v);
void lk_ids_start(void);
/* A task or thread is being destroyed: its number is not reused for
   the next object at its address (pcb_terminate, machine_task_terminate). */
void lk_ids_forget(uint64_t obj);
/* A task (thread = 0) or thread was just created: number it now, so that
   numbers follow creation order (ipc_task_enable, ipc_thread_enable). */
void lk_ids_born(uint64_t obj, int thread);

/* fbt.c */
int lk_sites_check(char *msg, uint32_t len);
void lk_sites_install(void);
void lk_sites_remove(void);
void lk_fast_disarm(void);
void lk_fire_probe(uint32_t probe, struct lk_fire *f, const uint64_t *args,
		   uint32_t nargs);

/* kmain.c */
void lk_tick(struct lk_regs *r);
void lk_ending(struct lk_regs *r);

#endif
