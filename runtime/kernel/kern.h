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
#include "machtrace/jitabi.h"

/* What a firing hands mt_plat_* through mt_pctx.plat. */
struct lk_fire {
	struct lk_regs *r;
	uint64_t pc;			/* probe address */
	uint64_t sp;			/* stack pointer at the probe (-> ret addr) */
	uint64_t fp;			/* frame pointer for stack() */
	uint32_t user;			/* a user site's firing (usite.c): r
					   holds the user registers at the int3
					   (pcb->iss has not been written) */
	uint64_t tracer;		/* a profile sample of tracer time
					   (sample.c): stack()'s leaf, before pc */
	uint64_t rsp;			/* rsp at a site's instruction, regs[15]
					   (locals' CFA), 0 elsewhere */
};

#define LK_THR_CACHE	MT_JIT_MEMO_N

/* Blob state: written by the blob only, in probe context with IF = 0. */
struct lk_glob {
	struct lk_blob_hdr *hdr;
	struct lk_ctl *ctl;
	struct lk_site *sites;		/* sorted by addr (host sorts) */
	uint32_t nsites;
	struct lk_usite *usites;	/* sorted by addr (host sorts) */
	uint32_t nusites;
	struct mt_cb *cb;		/* NULL until the runtime is initialised */
	uint64_t resv_va, resv_end;
	uint64_t area_va, area_end;
	uint64_t tsc_mult;		/* ns = (tsc * tsc_mult) >> 32 */
	uint64_t hb_last, hb_tsc;	/* deadman: last heartbeat seen, when */
	uint64_t deadman_tsc;
	int tracing;
	int stopping;			/* the CPU in stop_tracing + 1, 0: none */
	int ending;			/* stopping: only END fires (stop_tracing) */
	int attached;			/* the host put the tick hook in (attach mode) */
	uint32_t go_waits;		/* attach: ticks GO waited (patch_unsafe) */
	uint32_t begin_probe, end_probe;	/* image probe index + 1 */
	uint32_t req_done;		/* CPUs that served the host's request */
	/* lk_jit_execname's copy, per CPU */
	char jit_name[LK_NCPU_MAX][MT_JIT_PLATNAME];
	/* kplat.c: per-thread memo of each CPU, direct-mapped by address;
	   compiled code reads its CPU's th and name (jitabi.h
	   MT_JR_PLAT_THRMEMO) */
	struct lk_thr {
		uint64_t th, name;
		int64_t tid;
		uint64_t tid_ok;
		int64_t pid;
		uint64_t pid_ok, pad[2];
	} thr[LK_NCPU_MAX][LK_THR_CACHE];
	/* kvtime.c (LK_CTL_VTIME), TSC ticks; compiled code writes both
	   (jitabi.h MT_JR_PLAT_VCLOCK) */
	uint64_t vt_fire;		/* the firing's start; 0 outside one */
	uint64_t vt_probe;		/* spent in probe context since GO */
	/* kplat.c: the direct map less our region, which compiled code
	   loads from without a helper (jitabi.h MT_JR_PLAT_LOADABLE) */
	uint64_t loadable[2 * MT_JIT_NLOADABLE];
};
_Static_assert(sizeof(struct lk_thr) == MT_JIT_MEMO_SIZE, "the memo compiled code reads");
_Static_assert(__builtin_offsetof(struct lk_thr, tid) == MT_JIT_MEMO_TID &&
	       __builtin_offsetof(struct lk_thr, tid_ok) == MT_JIT_MEMO_TIDOK &&
	       __builtin_offsetof(struct lk_thr, pid) == MT_JIT_MEMO_PID &&
	       __builtin_offsetof(struct lk_thr, pid_ok) == MT_JIT_MEMO_PIDOK &&
	       (1u << MT_JIT_MEMO_SHIFT) == MT_JIT_MEMO_SIZE,
	       "the memo's tid and pid as compiled code reads them");
_Static_assert(__builtin_offsetof(struct lk_glob, vt_probe) ==
	       __builtin_offsetof(struct lk_glob, vt_fire) + 8,
	       "the clock compiled code writes (MT_JR_PLAT_VCLOCK)");
extern struct lk_glob lk;
/* An SMP kernel's cpu_id_lut (0: CPU 0 always), for entry.S's choice of
   the CPU's blob stack: at LK_VEC_CPU_LUT, written by the host before a
   session's first hook. */
extern volatile uint64_t lk_cpu_lut;

#define LK_KVA(pa)	((pa) + LK_KERNEL_MAP_BASE)

uint64_t lk_ns(uint64_t tsc);
/* kplat.c */
int lk_load64(uint64_t addr, uint64_t *v);
/* The n (1..8) bytes at addr, zero-extended; 0 when not all loadable. */
int lk_load_n(uint64_t addr, uint32_t n, uint64_t *v);
/* Physical address of a kernel VA (direct map or page tables), ~0 if none. */
uint64_t lk_kva_pa(uint64_t va);
/* The page-table entry mapping kernel va (*level 1: 4 KiB; 2, 3: large). */
volatile uint64_t *lk_kpte(uint64_t va, int *level);
void lk_ids_start(void);
/* Attach mode (a VM): keep the numbers of earlier sessions, number every
   existing task (and its threads) not numbered yet in creation order, and
   arm the user sites of each (they were running before GO). */
void lk_ids_attach(void);
/* A task or thread is being destroyed: its number is not reused for
   the next object at its address (pcb_terminate, machine_task_terminate). */
void lk_ids_forget(uint64_t obj);
uint64_t lk_kernel_rpcs(void);
/* A task (thread = 0) or thread was just created: number it now, so that
   numbers follow creation order (ipc_task_enable, ipc_thread_enable). */
void lk_ids_born(uint64_t obj, int thread);
/* The thread's entry in the tid table (runtime/idtab.h; its data[] is
   the thread's virtual clock, kvtime.c), numbered now if new; NULL when
   the table is full. */
struct mt_ident *lk_thread_ent(uint64_t th);

/* kvtime.c: vtimestamp (the block comment there) */
void lk_vtime_start(void);
/* The current thread leaves the CPU, `next` takes it. */
void lk_vtime_switch(uint64_t next);
/* The current thread's virtual time, ns. */
uint64_t lk_vtime(void);

/*
 * kuser.c: user memory and saved user registers (block comment there).
 * Every function is a safe load: no fault, no page-in, no lock.
 */
#define LK_USER_TOP	0x800000000000ull	/* user VAs are below */
/* Physical address of user va in the address space whose top-level table
   is at pml4_pa; ~0 if not present, not user-accessible or (write) not
   writable at some level.  *span (if given): bytes to the page's end. */
uint64_t lk_user_pa(uint64_t pml4_pa, uint64_t va, uint64_t *span, int write);
/* Copy up to n bytes of user memory at va into dst, stopping at the first
   unreadable byte, or (str) after a NUL; returns the bytes copied. */
uint64_t lk_user_copy(uint64_t pml4_pa, void *dst, uint64_t va, uint64_t n,
		      int str);
/* Physical address of the top-level table of the thread's task, 0 for a
   thread of kernel_task (no user memory) or when unknown. */
uint64_t lk_task_pml4(uint64_t thread);
/* The same for a task (0 for kernel_task). */
uint64_t lk_task_pml4_of(uint64_t task);
/* Where the thread's user registers were saved at its entry to the kernel. */
struct lk_uregs_loc {
	uint64_t iss;			/* kernel VA of struct i386_saved_state */
};
/* 1 and *loc for a user thread; 0 for a kernel thread (or unknown). */
int lk_user_iss(uint64_t thread, struct lk_uregs_loc *loc);
/* uregs[idx] with dtrace-utils' x86-64 R_* numbering (lkabi.h lk_ureg,
   then the i386 aliases): 1 and *v; 0 if idx names no register (illegal
   operation); -1 if the saved state cannot be read.  A register the
   kernel does not save (ds, es, fs, gs) reads 0. */
int lk_user_reg(const struct lk_uregs_loc *loc, uint64_t idx, uint64_t *v);

/* Index of the first element at or above addr in arr[n] (elements of
   `stride` bytes sorted by a leading uint64_t address), n if none. */
static inline uint32_t lk_first_at(const void *arr, uint32_t n, uint32_t stride,
				   uint64_t addr)
{
	uint32_t a = 0, b = n;

	while (a < b) {
		uint32_t m = a + (b - a) / 2;
		if (*(const uint64_t *)((const uint8_t *)arr + (uint64_t)m * stride) < addr)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/*
 * Is pc strictly inside the bytes a patched site's write covers (addr <
 * pc < addr + plen)?  A thread resuming there would run the middle of
 * the jmp.  pc == addr is the jmp's start, and past addr + plen the
 * original bytes stay: both are instruction boundaries.  sites[n] is
 * sorted by addr; plen is at most 8, so only the sites at most 8 bytes
 * below pc can cover it.
 */
static inline int lk_pc_in_patch(const struct lk_site *sites, uint32_t n, uint64_t pc)
{
	uint32_t a = lk_first_at(sites, n, sizeof *sites, pc);

	while (a-- > 0 && sites[a].addr + 8 > pc)
		if (pc < sites[a].addr + sites[a].plen)
			return 1;
	return 0;
}

/*
 * May the clock tick that interrupted (usermode, pc) patch or unpatch?
 * clock_interrupt(usec, usermode, basepri, pc) gets pc 0 when the tick
 * interrupted an interrupt handler (GNU Mach's hardclock on the
 * interrupt stack): the handler's own interrupted pc is unknown then.
 */
static inline int lk_tick_unsafe(const struct lk_site *sites, uint32_t n,
				 uint64_t usermode, uint64_t pc)
{
	if (usermode)
		return 0;
	return pc == 0 || lk_pc_in_patch(sites, n, pc);
}

/* fbt.c */
int lk_sites_check(char *msg, uint32_t len);
void lk_sites_install(void);
int lk_site_adopt(uint32_t i);
void lk_sites_remove(void);
void lk_fast_disarm(void);
void lk_site_jump(struct lk_site *s, int32_t rel);
/* kplat.c: compiled code's execname (jitabi.h MT_JR_PLAT_EXECNAME) */
uint64_t lk_jit_execname(void);
/* Where CPU cpu's current thread pointer is (0 if unknown or not loadable). */
uint64_t lk_jit_curthread_at(uint32_t cpu);
uint64_t lk_jit_loadable_at(void);
/* jitarm.c: point an LK_SF_JIT site's jmp at its compiled code; the
   functions entry.S's thunks call (lk_jit_thunks, 16 bytes each) */
extern uint64_t lk_jit_fn[];
extern const char lk_jit_thunks[], lk_jit_thunks_end[];
void lk_jit_arm(struct lk_site *s);
void lk_sites_prepare(void);
void lk_fire_probe(uint32_t probe, struct lk_fire *f, const uint64_t *args,
		   uint32_t nargs);

/* usite.c: user sites (usdt, pid) */
void lk_usites_install(uint64_t pid);
/* Arm task pid's sites in the address space at pml4_pa (a task that was
   running before GO, in a VM). */
void lk_usites_install_in(uint64_t pid, uint64_t pml4_pa);
void lk_usites_remove(int64_t pid);
/* A trap from user mode: the user registers u (a copy of entry.S's save
   area r) go to the thread's pcb->iss, as the kernel's own trap entry
   puts them (trap number trapno), so that uregs[] and ustack() read them;
   0 when iss is not where the trap landed.  Clobbers r: lk_regs_copy(r,
   u) puts entry.S's layout back before returning to it. */
int lk_iss_fill(struct lk_regs *r, const struct lk_regs *u, uint64_t trapno);
void lk_regs_copy(struct lk_regs *to, const struct lk_regs *from);
/* A stapsdt operand's value: v sign- (size < 0) or zero-extended from
   its |size| low bytes. */
uint64_t lk_uarg_extend(uint64_t v, int8_t size);

/* apic.c: tick/profile probes from the local APIC timer */
void lk_apic_start(void);
void lk_apic_stop(void);
int lk_apic_join(void);
uint64_t lk_sample_at(const struct lk_regs *r, struct lk_fire *f);
/* The site at addr (fbt.c), 0 if none. */
struct lk_site *lk_site_at(uint64_t addr);

/* kmain.c */
void lk_tick(struct lk_regs *r);
/* Fire the tick/profile probes due now (f, args: the interrupted
   context; catchup: each missed interval too); returns the TSC at which
   the next one is due (~0: none). */
uint64_t lk_ticks_run(struct lk_fire *f, const uint64_t *args, int catchup);
void lk_ending(struct lk_regs *r);

#endif
