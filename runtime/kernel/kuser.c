/*
 * User memory and user registers of GNU Mach tasks (probe context).
 *
 * Which page tables: the task's own pmap (thread->task->map->pmap->l4base),
 * not CR3.  CR3 holds whatever pmap the kernel last activated: in the
 * context-switch path it can belong to the thread switched from, and a
 * kernel thread runs on whatever was loaded before it.  The task's pmap is
 * the definition of "the current task's memory" wherever the probe is.
 * A thread of kernel_task has no user memory: every user address is an
 * ERROR for it.  l4base is a kernel VA: in the direct map its physical
 * address is va - KERNEL_MAP_BASE, elsewhere the kernel's page tables say.
 *
 * Safe loads only: page-table entries and user bytes are read through the
 * direct map of RAM (LK_KVA), never through the user VA, so nothing here
 * faults or pages in.  A user address is readable when every level of its
 * walk is present and user-accessible (and writable when asked for), and
 * its page lies in the direct map; anything else (unmapped, paged out,
 * copy-on-write not yet resolved for a write, device memory, RAM beyond
 * the direct map) is not, and the D program gets dtrace's "invalid
 * address" ERROR.  The PTEs are read without the pmap's lock: a mapping
 * removed concurrently can still be read once, which on a uniprocessor
 * with interrupts off (probe context) cannot happen mid-walk.
 *
 * User registers: GNU Mach saves a user thread's registers at every entry
 * to the kernel (trap, interrupt, system call) in thread->pcb->iss, the
 * top of the PCB stack; the host maps dtrace's uregs[] indices to its
 * members (lk_kdesc.iss_off).  A kernel thread has no user registers.
 */
#include "runtime/kernel/kern.h"

#define PTE_P		0x1ull
#define PTE_W		0x2ull
#define PTE_U		0x4ull
#define PTE_PS		0x80ull
#define PTE_ADDR	0x000ffffffffff000ull

#ifdef LK_KUSER_HOSTTEST
/* tests/unit/live/test_kuser.c: a fake physical memory */
const volatile void *lk_phys(uint64_t pa, uint64_t len);
#else
/* The direct-map address of physical [pa, pa + len), 0 if not all in it. */
static const volatile void *lk_phys(uint64_t pa, uint64_t len)
{
	uint64_t end = lk.ctl ? lk.ctl->k.directmap_end : 0;

	if (pa >= end || len > end - pa)
		return 0;
	return (const volatile void *)LK_KVA(pa);
}
#endif

uint64_t lk_user_pa(uint64_t pml4_pa, uint64_t va, uint64_t *span, int write)
{
	uint64_t t = pml4_pa & PTE_ADDR, need = PTE_P | PTE_U | (write ? PTE_W : 0);

	if (va >= LK_USER_TOP)
		return ~0ull;
	for (int lvl = 4; lvl >= 1; lvl--) {
		uint32_t shift = 12 + 9 * (lvl - 1);
		const volatile uint64_t *p = lk_phys(t + 8 * ((va >> shift) & 511), 8);
		uint64_t e;

		if (!p)
			return ~0ull;
		e = *p;
		if ((e & need) != need)
			return ~0ull;
		if (lvl == 1 || ((lvl == 2 || lvl == 3) && (e & PTE_PS))) {
			uint64_t mask = (1ull << shift) - 1;

			if (span)
				*span = mask + 1 - (va & mask);
			return ((e & PTE_ADDR) & ~mask) | (va & mask);
		}
		t = e & PTE_ADDR;
	}
	return ~0ull;
}

uint64_t lk_user_copy(uint64_t pml4_pa, void *dst, uint64_t va, uint64_t n,
		      int str)
{
	uint8_t *d = dst;
	uint64_t done = 0;

	while (done < n) {
		uint64_t span = 0, pa = lk_user_pa(pml4_pa, va + done, &span, 0);
		const volatile uint8_t *s;

		if (pa == ~0ull)
			break;
		if (span > n - done)
			span = n - done;
		if (!(s = lk_phys(pa, span)))
			break;
		for (uint64_t i = 0; i < span; i++) {
			d[done++] = s[i];
			if (str && !s[i])
				return done;
		}
	}
	return done;
}

static uint64_t kernel_task_ptr(void)
{
	uint64_t t = 0;

	if (!lk.ctl->k.kernel_task || !lk_load64(lk.ctl->k.kernel_task, &t))
		return 0;
	return t;
}

/* The thread's task, 0 for none or a thread of kernel_task. */
static uint64_t user_task(uint64_t thread)
{
	uint64_t task = 0;

	if (!thread || !lk.ctl ||
	    !lk_load64(thread + lk.ctl->k.off_thread_task, &task) || !task ||
	    task == kernel_task_ptr())
		return 0;
	return task;
}

uint64_t lk_task_pml4(uint64_t thread)
{
	return lk_task_pml4_of(user_task(thread));
}

uint64_t lk_task_pml4_of(uint64_t task)
{
	const struct lk_kdesc *k;
	uint64_t map = 0, pmap = 0, l4 = 0;

	if (!task || task == kernel_task_ptr() || !lk.ctl->k.off_map_pmap)
		return 0;
	k = &lk.ctl->k;
	if (!lk_load64(task + k->off_task_map, &map) || !map ||
	    !lk_load64(map + k->off_map_pmap, &pmap) || !pmap ||
	    !lk_load64(pmap + k->off_pmap_l4, &l4) || !l4)
		return 0;
	l4 = lk_kva_pa(l4);
	return l4 == ~0ull ? 0 : l4;
}

int lk_user_iss(uint64_t thread, struct lk_uregs_loc *loc)
{
	const struct lk_kdesc *k;
	uint64_t pcb = 0;

	loc->iss = 0;
	if (!user_task(thread) || !lk.ctl->k.off_thread_pcb)
		return 0;
	k = &lk.ctl->k;
	if (!lk_load64(thread + k->off_thread_pcb, &pcb) || !pcb)
		return 0;
	loc->iss = pcb + k->off_pcb_iss;
	return 1;
}

/*
 * dtrace-utils' x86-64 regs.d: 0..25 are the x86-64 names (LK_UREG_*),
 * 26..41 the i386 names after R_GS (R_ECX .. R_SS; R_EBX is 25, which
 * R_TRAPNO names too: the x86-64 meaning wins), as offsets into Linux's
 * i386 pt_regs order mapped to their x86-64 registers.
 */
static const uint8_t i386_alias[16] = {
	LK_UREG_RCX, LK_UREG_RDX, LK_UREG_RSI, LK_UREG_RDI, LK_UREG_RBP,
	LK_UREG_RAX, LK_UREG_DS, LK_UREG_ES, LK_UREG_FS, LK_UREG_GS,
	LK_UREG_ERR, LK_UREG_RIP, LK_UREG_CS, LK_UREG_RFL, LK_UREG_RSP,
	LK_UREG_SS,
};

int lk_user_reg(const struct lk_uregs_loc *loc, uint64_t idx, uint64_t *v)
{
	uint32_t slot, off;

	*v = 0;
	if (idx >= LK_UREG_N + 16)
		return 0;
	slot = idx < LK_UREG_N ? (uint32_t)idx : i386_alias[idx - LK_UREG_N];
	off = lk.ctl->k.iss_off[slot];
	if (off == LK_UREG_NONE)
		return 1;
	return lk_load64(loc->iss + off, v) ? 1 : -1;
}
