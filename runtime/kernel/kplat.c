/*
 * The runtime's mt_plat_* hooks in GNU Mach (probe context).
 *
 * Loads: an address is loadable when it is a kernel address (upper 2 GiB,
 * where GNU Mach maps everything), outside the reserved region, and either
 * in the direct map of RAM (always mapped) or mapped by the current page
 * tables to RAM below the direct map's end (no device memory).  The page
 * tables are read through the direct map, so checking never faults.  Thread, task and execname are read with the
 * same checks through the offsets the host found in the kernel's DWARF.
 */
#include "runtime/kernel/kern.h"

#define PTE_P		0x1ull
#define PTE_PS		0x80ull
#define PTE_ADDR	0x000ffffffffff000ull

static int pt_entry(uint64_t table_pa, uint32_t idx, uint64_t *e)
{
	uint64_t pa = table_pa + 8ull * idx;

	if (pa + 8 > lk.ctl->k.directmap_end)
		return 0;
	*e = *(volatile uint64_t *)LK_KVA(pa);
	return (*e & PTE_P) != 0;
}

/* Physical address of va, ~0 if not mapped; *span = bytes to the page end. */
static uint64_t translate(uint64_t va, uint64_t *span)
{
	uint64_t t = lk_cr3() & PTE_ADDR, e = 0;

	for (int lvl = 4; lvl >= 1; lvl--) {
		uint32_t shift = 12 + 9 * (lvl - 1);
		if (!pt_entry(t, (uint32_t)((va >> shift) & 511), &e))
			return ~0ull;
		if (lvl == 1 || ((lvl == 2 || lvl == 3) && (e & PTE_PS))) {
			uint64_t mask = (1ull << shift) - 1;
			*span = mask + 1 - (va & mask);
			return ((e & PTE_ADDR) & ~mask) | (va & mask);
		}
		t = e & PTE_ADDR;
	}
	return ~0ull;
}

/* Bytes loadable at addr (page tables, RAM only), at most size. */
static uint64_t lk_loadable(uint64_t addr, uint64_t size)
{
	uint64_t done = 0;

	if (addr < LK_KERNEL_MAP_BASE || !lk.ctl)
		return 0;
	/* GNU Mach maps all RAM below directmap_end at KERNEL_MAP_BASE (its
	   phystokv): no walk there, only our region is excluded */
	if (addr + size >= addr && addr + size <= LK_KERNEL_MAP_BASE + lk.ctl->k.directmap_end &&
	    (addr + size <= lk.resv_va || addr >= lk.resv_end))
		return size;
	while (done < size) {
		uint64_t va = addr + done, span, pa;
		if (va < addr || (va >= lk.resv_va && va < lk.resv_end))
			break;
		pa = translate(va, &span);
		if (pa == ~0ull || pa >= lk.ctl->k.directmap_end)
			break;
		done += span;
	}
	return done > size ? size : done;
}

int lk_load64(uint64_t addr, uint64_t *v)
{
	if (lk_loadable(addr, 8) < 8)
		return 0;
	*v = *(volatile uint64_t *)addr;
	return 1;
}

uint64_t mt_plat_time(void)
{
	return lk_ns(lk_rdtsc());
}

uint64_t mt_plat_walltime(void)
{
	return lk.ctl->k.boot_walltime_ns + lk_ns(lk_rdtsc());
}

uint32_t mt_plat_cpu(void)
{
	return 0;
}

uint64_t mt_plat_loadable(const struct mt_pctx *ctx, uint64_t addr,
			  uint64_t size)
{
	return lk_loadable(addr, size);
}

static uint64_t cur_thread(void)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	uint64_t th = 0;

	if (!k->percpu_array ||
	    !lk_load64(k->percpu_array + k->off_active_thread, &th))
		return 0;
	return th;
}

static uint64_t cur_task(void)
{
	uint64_t th = cur_thread(), task = 0;

	if (!th || !lk_load64(th + lk.ctl->k.off_thread_task, &task))
		return 0;
	return task;
}

static uint64_t caller(const struct lk_fire *f)
{
	uint64_t v = 0;

	if (f && f->sp && lk_load64(f->sp, &v))
		return v;
	return 0;
}

uint64_t mt_plat_var(const struct mt_pctx *ctx, uint32_t var)
{
	const struct lk_fire *f = ctx ? ctx->plat : 0;
	uint64_t pcs[64];

	switch (var) {
	case MT_VAR_CURTHREAD:
	case MT_VAR_TID:
		return cur_thread();
	case MT_VAR_TASK:
	case MT_VAR_PID:
		return cur_task();
	case MT_VAR_CALLER:
		return caller(f);
	case MT_VAR_STACKDEPTH:
		return mt_plat_stack(ctx, 0, pcs, 64);
	case MT_VAR_CPU:
	case MT_VAR_CURCPU:
	case MT_VAR_IPL:
	default:
		return 0;
	}
}

void mt_plat_strvar(const struct mt_pctx *ctx, uint32_t var, char *buf,
		    uint32_t len)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	uint64_t task, name;
	uint32_t i = 0, n;

	if (len == 0)
		return;
	buf[0] = 0;
	if (var != MT_VAR_EXECNAME && var != MT_VAR_EXECARGS) {
		if (var == MT_VAR_ZONENAME && len > 6)
			for (i = 0; i < 7; i++)
				buf[i] = "global"[i];
		return;
	}
	task = cur_task();
	if (!task || !k->task_name_size)
		return;
	name = task + k->off_task_name;
	n = k->task_name_size < len ? k->task_name_size : len - 1;
	n = (uint32_t)lk_loadable(name, n);
	for (; i < n && i < len - 1; i++) {
		char ch = *(volatile char *)(name + i);
		if (!ch)
			break;
		buf[i] = ch;
	}
	buf[i] = 0;
}

/* regs[] in illumos' x86-64 order is not modelled; rip/rsp/rbp by name. */
uint64_t mt_plat_reg(const struct mt_pctx *ctx, int uregs, uint64_t idx,
		     int *ok)
{
	const struct lk_fire *f = ctx ? ctx->plat : 0;
	const struct lk_regs *r = f ? f->r : 0;
	const uint64_t *g = (const uint64_t *)r;

	*ok = 0;
	if (uregs || !r || idx >= 15)
		return 0;
	*ok = 1;
	return g[14 - idx];	/* 0 = rax, 1 = rcx, ... as saved */
}

/* Frame-pointer walk: the probe's caller first, then each saved rbp. */
uint32_t mt_plat_stack(const struct mt_pctx *ctx, int user, uint64_t *pcs,
		       uint32_t n)
{
	const struct lk_fire *f = ctx ? ctx->plat : 0;
	uint64_t fp, pc;
	uint32_t i = 0;

	if (user || !f || !n)
		return 0;
	if (f->pc)
		pcs[i++] = f->pc;
	pc = caller(f);
	if (pc && i < n)
		pcs[i++] = pc;
	fp = f->fp;
	while (i < n && fp && !(fp & 7)) {
		uint64_t next;
		if (!lk_load64(fp + 8, &pc) || !lk_load64(fp, &next))
			break;
		if (pc < LK_KERNEL_MAP_BASE)
			break;
		pcs[i++] = pc;
		if (next <= fp)
			break;
		fp = next;
	}
	return i;
}

/*
 * panic(): the kernel's own panic(), whose console line says why, then
 * KDB; breakpoint(): an int3 that is no site of ours, which vector 3
 * passes to the kernel's handler: KDB.  Neither returns unless someone
 * continues from the debugger.
 */
void mt_plat_destructive(const struct mt_pctx *ctx, uint32_t act)
{
	const struct lk_kdesc *k = &lk.ctl->k;

	/* GNU Mach's panic(s...) is Panic(__FILE__, __LINE__, __func__, s...) */
	if (act == MT_ACT_PANIC && k->panic_fn)
		((void (*)(const char *, int, const char *, const char *, ...))k->panic_fn)
			("machtrace", 0, "panic", "panic() action in probe context");
	__asm__ volatile("int3");
}
