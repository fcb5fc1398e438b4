/*
 * Safe loads and stores for D programs (probe context).
 *
 * A D program may load from: the runtime's own state area (image, strtab,
 * variables, scratch), the probe's argument data (mt_pctx.argdata), and
 * whatever the platform says is loadable (mt_plat_loadable).  Anything else
 * is a fault: MT_FLT_BADADDR with the address.  Stores go only into the
 * current CPU's scratch space.  A fault is recorded in the machine state;
 * the interpreter stops at the next instruction boundary.
 */
#include "rt.h"

void rt_fault(struct rt_mstate *ms, uint32_t fault, uint64_t addr)
{
	if (ms->fault == MT_FLT_NONE) {
		ms->fault = fault;
		ms->fault_addr = addr;
	}
}

static uint64_t in_range(uint64_t addr, uint64_t size, const void *base,
			 uint64_t len)
{
	uint64_t b = (uint64_t)(uintptr_t)base;

	if (addr < b || addr - b >= len)
		return UINT64_MAX;
	return len - (addr - b) < size ? len - (addr - b) : size;
}

/*
 * Bytes loadable from addr, at most size.  In the state area only what a
 * D program can name is loadable: the image (strtab included), globals,
 * dynamic variables, this CPU's clause-locals and the scratch allocated so
 * far in this clause.
 */
static uint64_t rt_loadable(struct rt_mstate *ms, uint64_t addr, uint64_t size)
{
	struct rt *rt = ms->rt;
	uint64_t base = (uint64_t)(uintptr_t)rt->base, n;
	const struct mt_pctx *ctx = ms->ctx;

	if (addr >= base && addr - base < rt->area_size) {
		if ((n = in_range(addr, size, ms->c->scratch,
				  ms->scratch_used)) != UINT64_MAX ||
		    (n = in_range(addr, size, rt->img, rt->img->size)) !=
		    UINT64_MAX ||
		    (n = in_range(addr, size, rt->globals, rt->globals_size)) !=
		    UINT64_MAX ||
		    (n = in_range(addr, size, ms->c->locals, rt->locals_size)) !=
		    UINT64_MAX ||
		    (n = in_range(addr, size, rt->dyn, (uint64_t)rt->dyn_nchunks *
				  rt->dyn_chunksize)) != UINT64_MAX)
			return n;
		return 0;
	}
	if (ctx && ctx->argdata_size && addr >= ctx->argdata &&
	    addr - ctx->argdata < ctx->argdata_size) {
		n = ctx->argdata_size - (addr - ctx->argdata);
		return n < size ? n : size;
	}
	return mt_plat_loadable(ctx, addr, size);
}

/* 0 if [addr, addr+size) may be loaded, else faults and returns -1. */
int rt_check_load(struct rt_mstate *ms, uint64_t addr, uint64_t size)
{
	uint64_t n;

	if (size > 1 && (size & (size - 1)) == 0 && size <= 8 &&
	    (addr & (size - 1))) {
		rt_fault(ms, MT_FLT_BADALIGN, addr);
		return -1;
	}
	n = rt_loadable(ms, addr, size);
	if (n < size) {
		rt_fault(ms, MT_FLT_BADADDR, addr + n);
		return -1;
	}
	return 0;
}

int rt_check_store(struct rt_mstate *ms, uint64_t addr, uint64_t size,
		   int align)
{
	uint64_t s = (uint64_t)(uintptr_t)ms->c->scratch;

	if (addr < s || addr - s > ms->scratch_used ||
	    size > ms->scratch_used - (addr - s)) {
		rt_fault(ms, MT_FLT_BADADDR, addr);
		return -1;
	}
	if (align && size > 1 && size <= 8 && (addr & (size - 1))) {
		rt_fault(ms, MT_FLT_BADALIGN, addr);
		return -1;
	}
	return 0;
}

int rt_copy_in(struct rt_mstate *ms, void *dst, uint64_t src, uint64_t n)
{
	uint64_t ok = rt_loadable(ms, src, n);

	if (ok < n) {
		rt_fault(ms, MT_FLT_BADADDR, src + ok);
		return -1;
	}
	rt_memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}

int rt_copy_user(struct rt_mstate *ms, void *dst, uint64_t src, uint64_t n)
{
	uint64_t got = mt_plat_ucopy(ms->ctx, dst, src, n, 0);

	if (got == MT_UCOPY_NOTUSER)
		return rt_copy_in(ms, dst, src, n);
	if (got < n) {
		rt_fault(ms, MT_FLT_BADADDR, src + got);
		return -1;
	}
	return 0;
}

/* Copy the string at src (safe loads), at most size - 1 bytes, without
   its NUL; its length, -1 on fault.  size > 0. */
static int64_t copy_to_nul(struct rt_mstate *ms, char *dst, uint64_t src,
			   uint64_t size)
{
	int64_t len = rt_strlen(ms, src, size - 1);

	if (len >= 0)
		rt_memcpy(dst, (const void *)(uintptr_t)src, (uint64_t)len);
	return len;
}

/* At most n - 1 bytes and the NUL; a NUL or n - 1 bytes end it. */
int rt_copy_ustr(struct rt_mstate *ms, char *dst, uint64_t src, uint64_t n)
{
	uint64_t got;

	if (n == 0)
		return 0;
	got = mt_plat_ucopy(ms->ctx, dst, src, n - 1, 1);
	if (got == MT_UCOPY_NOTUSER)
		return copy_to_nul(ms, dst, src, n) < 0 ? -1 : 0;
	if (got < n - 1 && (got == 0 || dst[got - 1] != '\0')) {
		rt_fault(ms, MT_FLT_BADADDR, src + got);
		return -1;
	}
	return 0;
}

void rt_rec_stack(struct rt_mstate *ms, const struct mt_rec *rec, uint8_t *p)
{
	uint32_t max = rec->size / 8, n, skip = 0;

	if (rec->flags & MT_RF_UPID) {
		if (max == 0)
			return;
		*(uint64_t *)p = mt_plat_var(ms->ctx, MT_VAR_PID);
		skip = 1;
	}
	n = mt_plat_stack(ms->ctx, skip, (uint64_t *)p + skip, max - skip);
	if (n > max - skip)
		n = max - skip;
	rt_memset(p + 8 * (skip + n), 0, 8 * (max - skip - n));
}

/*
 * Length of the string at s, at most max, all max bytes readable: a word
 * at a time while a whole word is left (has it a 0 byte?), then bytes.
 */
static uint64_t strnlen_at(const char *s, uint64_t max)
{
	uint64_t i = 0;

	for (; i + 8 <= max; i += 8) {
		uint64_t w = *(const rt_u64u *)(s + i);
		if ((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull)
			break;
	}
	for (; i < max && s[i]; i++)
		;
	return i;
}

/*
 * Length of the string at addr, at most max (not counting the NUL); -1 on
 * fault.  Bytes past the loadable range fault unless max was reached.
 */
int64_t rt_strlen(struct rt_mstate *ms, uint64_t addr, uint64_t max)
{
	uint64_t n = rt_loadable(ms, addr, max);
	uint64_t i = strnlen_at((const char *)(uintptr_t)addr, n);

	if (i < n)
		return (int64_t)i;
	if (n < max) {
		rt_fault(ms, MT_FLT_BADADDR, addr + n);
		return -1;
	}
	return (int64_t)max;
}

int rt_copy_str0(struct rt_mstate *ms, char *dst, uint64_t src, uint64_t size)
{
	int64_t len;

	if (size == 0)
		return 0;
	if ((len = copy_to_nul(ms, dst, src, size)) < 0)
		return -1;
	dst[len] = '\0';
	return 0;
}

int rt_copy_str_over(struct rt_mstate *ms, char *dst, uint64_t src,
		     uint64_t size)
{
	uint64_t old, end;
	int64_t len;

	if (size == 0)
		return 0;
	old = strnlen_at(dst, size);
	if ((len = copy_to_nul(ms, dst, src, size)) < 0)
		return -1;
	end = old > (uint64_t)len ? old + 1 : (uint64_t)len + 1;
	if (end > size)
		end = size;
	rt_memset(dst + len, 0, end - (uint64_t)len);
	return 0;
}

int64_t rt_copy_strw(struct rt_mstate *ms, char *dst, uint64_t src, uint64_t size)
{
	int64_t len;
	uint64_t end;

	if (size == 0)
		return 0;
	if ((len = copy_to_nul(ms, dst, src, size)) < 0)
		return -1;
	end = RT_ALIGN((uint64_t)len + 1, 8);
	rt_memset(dst + len, 0, end - (uint64_t)len);
	return (int64_t)end;
}

/* alloca(): scratch within the user's scratchsize budget for the clause. */
uint64_t rt_alloca(struct rt_mstate *ms, uint64_t size)
{
	uint64_t sz = RT_ALIGN(size, 8);

	if (size > ms->rt->alloca_limit ||
	    sz > ms->rt->alloca_limit - ms->alloca_used) {
		rt_fault(ms, MT_FLT_NOSCRATCH, 0);
		return 0;
	}
	ms->alloca_used += sz;
	return rt_alloc(ms, size);
}

/* 8-aligned scratch, not zeroed; 0 and MT_FLT_NOSCRATCH if none. */
uint64_t rt_alloc_raw(struct rt_mstate *ms, uint64_t size)
{
	uint64_t sz = RT_ALIGN(size, 8);
	uint8_t *p;

	if (size > ms->rt->scratchsize ||
	    sz > ms->rt->scratchsize - ms->scratch_used) {
		rt_fault(ms, MT_FLT_NOSCRATCH, 0);
		return 0;
	}
	p = ms->c->scratch + ms->scratch_used;
	ms->scratch_used += sz;
	return (uint64_t)(uintptr_t)p;
}

/* Allocate zeroed, 8-aligned scratch; 0 and MT_FLT_NOSCRATCH if none. */
uint64_t rt_alloc(struct rt_mstate *ms, uint64_t size)
{
	uint64_t p = rt_alloc_raw(ms, size);

	if (p)
		rt_memset((void *)(uintptr_t)p, 0, RT_ALIGN(size, 8));
	return p;
}
