/*
 * Where a profile sample taken in kernel mode is charged (probe context,
 * the APIC timer's interrupt: apic.c, or the clock interrupt's fallback
 * for a sample in the blob's region: kmain.c).
 *
 * Outside the blob's region the interrupted instruction is the kernel's:
 * arg0 and stack()'s leaf are its pc, then its caller when the frame is
 * not built yet (a prologue), then its rbp chain.
 *
 * In the region, TCG takes an interrupt at a translation block's start,
 * and a probe runs with interrupts off: a tick that expires while a probe
 * runs is taken right after the probe's popfq (lk_fbt_entry_ret,
 * lk_fbt_ret_tail, the first displaced instruction after compiled
 * entry code or the ret after compiled return code, an int3 site's
 * out-of-line copy, the boot hook's ret).  That sample is tracer time:
 * arg0 is the blob's base, which the host names machtrace`tracer, and
 * stack() is machtrace`tracer, then the kernel instruction the probe ran
 * for with its real callers (the return address at the kernel's rsp for
 * a function's entry or return, then the rbp chain), as if the tracer
 * were a function that instruction called.  Other code of the blob (its
 * C code with interrupts on) is tracer time with no kernel frame.
 *
 * A sample at a trampoline's entry, an entry vector, a displaced
 * instruction or the boot hook's displaced instructions is the kernel's
 * own time (its instructions run out of line, or the probe has not
 * begun): charged to the kernel instruction it stands for, with its real
 * callers.
 */
#include "runtime/kernel/kern.h"

extern char lk_fbt_entry[], lk_fbt_entry_ret[], lk_fbt_ret_entry[], lk_fbt_ret_tail[],
	lk_boot_entry[], lk_boot_ret[], lk_int3[];
extern struct lk_blob_hdr lk_blob_hdr;

/* The site whose trampoline piece holds pc (the nearest start at or
   below it), NULL if none; *fast: pc is in its fast or compiled code. */
static const struct lk_site *tramp_site(uint64_t pc, int *fast)
{
	const struct lk_site *best = 0;
	uint64_t at = 0;

	for (uint32_t i = 0; i < lk.nsites; i++) {
		const struct lk_site *s = &lk.sites[i];
		uint64_t b[2] = { s->ool, s->fast };
		for (int k = 0; k < 2; k++)
			if (b[k] && b[k] <= pc && b[k] >= at) {
				at = b[k];
				best = s;
				*fast = k;
			}
	}
	return best;
}

/* A site at a function's entry or ret (not an instruction inside it): the
   kernel's return address is at ksp, its rsp there. */
static uint64_t site_ret_slot(const struct lk_site *s, uint64_t ksp)
{
	if (s->flags & (LK_SF_FRAME | LK_SF_NOFRAME))
		return 0;		/* inside a function: no rule here */
	return ksp;
}

/*
 * A sample in the trampoline area at pc (rsp at the interrupt), charged
 * to the site's kernel instruction; 1 when it is tracer time.  Where a
 * translation block starts at a function's entry site (a trampoline's,
 * its fast or compiled code's start, the displaced copy after the probe)
 * rsp is the kernel's: its return address is there.
 */
static int tramp_sample(uint64_t pc, uint64_t rsp, struct lk_fire *f)
{
	int fast = 0;
	const struct lk_site *s = tramp_site(pc, &fast);
	uint64_t start, disp, off;

	if (!s)
		return 1;
	f->pc = s->addr;
	if (fast && (s->flags & LK_SF_JIT)) {
		const struct lk_jit *j = (const struct lk_jit *)s->fast;
		uint64_t code = s->fast + j->code_off, end;
		if (pc < code || (j->ncopy > 1 && pc >= s->fast + j->disp_off))
			return 1;		/* the header, or the dispatch stub */
		if (j->stride)			/* the copy pc is in */
			code += (pc - code) / j->stride * j->stride;
		end = code + j->code_len;
		if (s->kind == LK_SK_JMPRET) {	/* displaced epilogue, code, ret */
			if (pc < code + s->len - 1)
				return 0;
			f->sp = rsp;
			return 1;
		}
		if (pc <= end) {		/* code, then the displaced copy */
			f->sp = site_ret_slot(s, rsp);
			return pc == end;
		}
		f->pc = s->addr + (pc - end < s->len ? pc - end : 0);
		return 0;
	}
	if (!fast && s->kind == LK_SK_INT3) {	/* the copy, after the probe */
		f->sp = site_ret_slot(s, rsp);
		return pc == s->ool;
	}
	start = fast ? s->fast : s->ool;
	disp = fast ? start + LK_FAST_INCQ_LEN : start + (s->kind == LK_SK_JMP ? LK_TRAMP_DISP : 0);
	off = pc >= disp ? pc - disp : 0;
	f->pc = off < s->len ? s->addr + off : s->addr;
	if (s->kind == LK_SK_JMP && pc <= disp)
		f->sp = site_ret_slot(s, rsp);
	return 0;
}

/*
 * A kernel pc in a function's prologue, before `mov %rsp,%rbp`: rbp is
 * still the caller's, so the walk from it would skip the caller; the
 * return address is at rsp (at `push %rbp`, or at a site of ours, whose
 * bytes are patched) or above the pushed rbp (at the mov).  The slot, or
 * 0 elsewhere.
 */
static uint64_t prologue_ret_slot(uint64_t pc, uint64_t rsp)
{
	const struct lk_site *s = lk_site_at(pc);
	uint64_t w;

	if (s)
		return s->kind == LK_SK_JMPRET ? 0 : site_ret_slot(s, rsp);
	if (!lk_load64(pc - 1, &w))
		return 0;
	if (((w >> 8) & 0xff) == 0x55)				/* push %rbp */
		return rsp;
	if ((w & 0xff) == 0x55 && ((w >> 8) & 0xffffff) == 0xe58948)	/* mov %rsp,%rbp */
		return rsp + 8;
	return 0;
}

/*
 * Fill f (pc, sp, fp, tracer) for a kernel-mode sample at r; returns
 * arg0.
 */
uint64_t lk_sample_at(const struct lk_regs *r, struct lk_fire *f)
{
	const struct lk_blob_hdr *h = &lk_blob_hdr;
	uint64_t pc = r->u.t.rip, rsp = r->u.t.rsp, hdr = (uint64_t)h;
	uint64_t cont = (uint64_t)h->hook_cont, top = 0;
	int tracer = 1;

	*f = (struct lk_fire){ (struct lk_regs *)r, pc, 0, r->rbp, 0, 0, 0 };
	if (pc < lk.resv_va || pc >= lk.resv_end) {
		f->sp = prologue_ret_slot(pc, rsp);
		return pc;
	}
	f->pc = 0;
	if (pc >= (uint64_t)lk_boot_entry && pc < (uint64_t)lk_int3) {
		/* the hooked function's entry: its return address at the
		   kernel's rsp, under hook_cont's address at the ret; the
		   hook's first instruction has not begun the tracer's work */
		f->pc = h->hook_va;
		f->sp = pc == (uint64_t)lk_boot_entry ? rsp :
			pc == (uint64_t)lk_boot_ret ? rsp + 8 : 0;
		tracer = pc != (uint64_t)lk_boot_entry;
	} else if (pc >= cont && pc < cont + sizeof h->hook_cont) {
		f->pc = pc - cont < h->hook_len ? h->hook_va + (pc - cont) : h->hook_va;
		tracer = 0;
	} else if (pc == (uint64_t)lk_fbt_entry_ret) {
		/* [rsp]: where the site goes on; the kernel's rsp above it */
		if (lk_load64(rsp, &top))
			tramp_sample(top, rsp + 8, f);
	} else if (pc == (uint64_t)lk_fbt_entry || pc == (uint64_t)lk_fbt_ret_entry ||
		   pc == (uint64_t)lk_fbt_ret_tail || pc == hdr + LK_VEC_FBT_ENTRY ||
		   pc == hdr + LK_VEC_FBT_RET) {
		/* [rsp]: the site's index; the kernel's rsp above it */
		if (lk_load64(rsp, &top) && top < lk.nsites) {
			f->pc = lk.sites[top].addr;
			f->sp = site_ret_slot(&lk.sites[top], rsp + 8);
		}
		tracer = pc == (uint64_t)lk_fbt_ret_tail;
	} else if (pc >= lk.resv_va + LK_TRAMP_OFF && pc < lk.resv_va + LK_TRAMP_OFF + LK_TRAMP_MAX) {
		tracer = tramp_sample(pc, rsp, f);
	}
	if (!f->pc)
		f->fp = 0;		/* the blob's own frames: not the kernel's */
	if (!tracer)
		return f->pc ? f->pc : pc;
	f->tracer = lk.resv_va;
	return lk.resv_va;
}
