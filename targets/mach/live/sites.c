/*
 * Probe sites of the live target, decided on the host (the blob only
 * writes the bytes given here).  For each probed function:
 *
 *   jmp entry (kimg says MT_PATCH_JMP): "jmp rel32" over the whole
 *     instructions covering 5 bytes (kimg checked they are position
 *     independent and that nothing branches into them); trampoline
 *     "push $index; jmp LK_VEC_FBT_ENTRY", the displaced bytes, "jmp back".
 *   int3 entry: "int3" on the first byte; out-of-line copy of the first
 *     instruction, relocated (rip-relative displacement adjusted, relative
 *     jmp/jcc/call rewritten to absolute targets), then "jmp back".
 *   jmp return: a ret whose preceding instructions give 5 position-
 *     independent bytes that nothing branches into: "jmp rel32" over them;
 *     trampoline: those instructions, "push $index; jmp LK_VEC_FBT_RET",
 *     where the blob fires and does the ret (retrange.c decides).
 *   int3 return: "int3" on the ret; the blob's handler does the ret.
 *
 * Several requests for one address (an entry probe and the blob's own
 * timer hook) merge into one site.  Trampolines live in the reserved
 * region, within rel32 of the kernel text.
 */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/live_int.h"
#include "targets/mach/mach_int.h"
#include "machtrace/vec.h"

int sites_add(struct site_set *s, const struct site_req *r)
{
	if (MT_VEC_ROOM(s->req, s->nreq, s->capreq, 1024) != 0)
		return -1;
	s->req[s->nreq++] = *r;
	return 0;
}

void sites_free(struct site_set *s)
{
	for (size_t i = 0; i < s->nreq; i++)
		if (s->req[i].jit) {
			mt_jit_free(s->req[i].jit);
			free(s->req[i].jit);
		}
	free(s->targets);
	free(s->req);
	free(s->sites);
	free(s->tramp);
	free(s->nofit);
	memset(s, 0, sizeof *s);
}

/* By address; at one address a ret site sorts before an int3 entry,
   then firing requests by probe. */
static int cmp_req(const void *a, const void *b)
{
	const struct site_req *x = a, *y = b;
	int xr = x->kind == LK_SK_RET, yr = y->kind == LK_SK_RET;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (xr != yr)
		return yr - xr;
	return x->probe < y->probe ? -1 : x->probe > y->probe;
}

void sites_sort(struct site_set *s)
{
	qsort(s->req, s->nreq, sizeof *s->req, cmp_req);
}

/* The host's copy of trampoline-area bytes at kernel VA va. */
static uint32_t *tramp_at(struct site_set *s, uint64_t va)
{
	return (uint32_t *)(s->tramp + (va - s->tramp_va));
}

static uint8_t *tramp_alloc(struct site_set *s, uint32_t n, uint64_t *va)
{
	uint8_t *p;

	if (s->tramp_used + n > LK_TRAMP_MAX)
		return NULL;
	p = s->tramp + s->tramp_used;
	*va = s->tramp_va + s->tramp_used;
	s->tramp_used += (n + 15) & ~15u;
	return p;
}

/* One more probe at site st (its extra list, in the trampoline area);
   -1 when the list is full. */
static int add_extra(struct site_set *s, struct lk_site *st, uint32_t probe)
{
	uint32_t *v;

	if (!st->extra && !tramp_alloc(s, 4 * LK_SITE_EXTRA_MAX, &st->extra))
		return -1;
	if (st->nextra >= LK_SITE_EXTRA_MAX)
		return -1;
	for (uint32_t k = 0; k < st->nextra; k++)
		if (tramp_at(s, st->extra)[k] == probe)
			return 0;
	v = tramp_at(s, st->extra);
	v[st->nextra++] = probe;
	return 0;
}

static int rel32(uint64_t from_end, uint64_t to, int32_t *out)
{
	int64_t d = (int64_t)(to - from_end);

	if (d != (int32_t)d)
		return -1;
	*out = (int32_t)d;
	return 0;
}

/* e9 rel32 at p (VA va) to target. */
static int put_jmp(uint8_t *p, uint64_t va, uint64_t target)
{
	int32_t d;

	if (rel32(va + 5, target, &d) < 0)
		return -1;
	p[0] = 0xe9;
	memcpy(p + 1, &d, 4);
	return 5;
}

/*
 * The displaced instructions [addr, addr + len), relocated to run at va,
 * then a jmp back unless the last one ends the flow.  Bytes, or -1.
 */
static int emit_displaced(struct mt_kimg *k, csh cs, uint64_t addr, unsigned len,
			  uint8_t *t, uint64_t va)
{
	const uint8_t *code = mt_kimg_bytes(k, addr, len);
	size_t left = len;
	uint64_t a = addr;
	cs_insn *in = cs_malloc(cs);
	int n = 0, m, ends = 0;

	while (code && in && left && cs_disasm_iter(cs, &code, &left, &a, in)) {
		m = reloc_insn(in, va + n, t + n, &ends);
		if (m < 0 || (ends && left)) {
			n = -1;
			break;
		}
		n += m;
	}
	if (in)
		cs_free(in, 1);
	if (n < 0 || left || !code)
		return -1;
	if (!ends) {
		if (put_jmp(t + n, va + n, addr + len) < 0)
			return -1;
		n += 5;
	}
	return n;
}

/*
 * One copy of a compiled probe's code at code (VA va): `pre` bytes (a
 * return's displaced instructions, run first), then the code with its
 * jmps to the general path (fallback) resolved.  0, or -1.
 */
static int jit_copy(const struct jit_buf *b, uint8_t *code, uint64_t va, const uint8_t *pre,
		    uint32_t npre, uint64_t fallback)
{
	int32_t d;

	if (npre)	/* pre is NULL when there is none */
		memcpy(code, pre, npre);
	memcpy(code + npre, b->code, b->len);
	for (uint32_t i = 0; i < b->nrel; i++) {
		const struct jit_rel *r = &b->rel[i];
		if (r->kind != JIT_JR_FALLBACK)
			continue;
		if (rel32(va + npre + r->at + 4, fallback, &d) < 0)
			return -1;
		memcpy(code + npre + r->at, &d, 4);
	}
	return 0;
}

/* Several copies: the stub "push $table; jmp LK_VEC_JIT_DISPATCH" at
   disp_off and its table (lkabi.h); general is the site's general path. */
static int jit_stub(const struct site_set *s, struct lk_jit *h, uint64_t va, uint64_t general)
{
	uint8_t *stub = (uint8_t *)h + h->disp_off;
	uint64_t table = va + h->disp_off + LK_JIT_STUB, *ent = (uint64_t *)(stub + LK_JIT_STUB);
	int32_t imm = (int32_t)table;

	if ((uint64_t)(int64_t)imm != table)
		return -1;
	stub[0] = 0x68;				/* push $imm32 */
	memcpy(stub + 1, &imm, 4);
	if (put_jmp(stub + 5, va + h->disp_off + 5, s->jit_dispatch_va) < 0)
		return -1;
	for (uint32_t c = 0; c <= LK_NCPU_MAX; c++)
		ent[c] = c < h->ncopy ? va + h->code_off + (uint64_t)c * h->stride : general;
	return 0;
}

/*
 * A compiled probe's code (LK_SF_JIT): struct lk_jit, its relocations,
 * then at code_off one copy per CPU (jit_copy), each followed by `room`
 * bytes for the caller (an entry's displaced instructions), and with
 * several a dispatch stub (jit_stub).  The jmp to the general path
 * (fallback) is resolved here; the blob resolves the rest.  The header,
 * or NULL if there is no room; copy 0's end, from the header, in *end_off.
 */
static struct lk_jit *jit_place(struct site_set *s, struct lk_site *st, const struct jit_code *jc,
				const uint8_t *pre, uint32_t npre, uint64_t fallback, uint32_t room,
				uint32_t *end_off)
{
	const struct jit_buf *b = &jc->b;
	uint32_t nrel = 0, code_off, stride, ncopy = s->ncopy ? s->ncopy : 1, i;
	uint64_t va, size;
	uint8_t *t;
	struct lk_jit *h;

	if (ncopy > LK_NCPU_MAX)
		return NULL;
	for (i = 0; i < b->nrel; i++)
		nrel += b->rel[i].kind != JIT_JR_FALLBACK;
	code_off = (uint32_t)(sizeof *h + nrel * sizeof h->rel[0] + 15) & ~15u;
	stride = (npre + b->len + room + 15) & ~15u;
	size = code_off + (uint64_t)ncopy * stride;
	if (ncopy > 1)
		size += LK_JIT_STUB + 8 * (LK_NCPU_MAX + 1);
	if (!(t = tramp_alloc(s, size, &va)))
		return NULL;
	h = (struct lk_jit *)t;
	h->nrel = nrel;
	h->code_off = code_off;
	h->code_len = npre + b->len;
	h->ncopy = (uint16_t)ncopy;
	h->stride = stride;
	h->disp_off = ncopy > 1 ? code_off + ncopy * stride : 0;
	for (uint32_t c = 0; c < ncopy; c++)
		if (jit_copy(b, t + code_off + c * stride, va + code_off + c * stride, pre, npre,
			     fallback) < 0)
			return NULL;
	for (i = 0, nrel = 0; i < b->nrel; i++) {
		const struct jit_rel *r = &b->rel[i];
		if (r->kind == JIT_JR_FALLBACK)
			continue;
		h->rel[nrel].at = npre + r->at;
		h->rel[nrel].kind = r->kind;
		h->rel[nrel].arg = r->arg;
		h->rel[nrel++].addend = r->addend;
	}
	if (ncopy > 1 && jit_stub(s, h, va, st->ool) < 0)
		return NULL;
	st->fast = va;
	*end_off = code_off + npre + b->len;
	return h;
}

static int jmp_entry(struct site_set *s, struct mt_kimg *k, csh cs, struct lk_site *st,
		     uint32_t index, unsigned len, char *err, size_t errlen)
{
	const uint8_t *code = mt_kimg_bytes(k, st->addr, len);
	uint64_t va;
	uint8_t *t = tramp_alloc(s, LK_TRAMP_DISP + 16 * len + 5, &va);
	uint32_t idx = index;

	if (!code || !t)
		return mt_seterr(err, errlen, "no room for the trampoline at 0x%llx",
				 (unsigned long long)st->addr), -1;
	t[0] = 0x68;				/* push $imm32 */
	memcpy(t + 1, &idx, 4);
	if (put_jmp(t + 5, va + 5, s->fbt_entry_va) < 0 ||
	    emit_displaced(k, cs, st->addr, len, t + LK_TRAMP_DISP, va + LK_TRAMP_DISP) < 0 ||
	    put_jmp(st->patch, st->addr, va) < 0)
		return mt_seterr(err, errlen, "cannot relocate the entry at 0x%llx",
				 (unsigned long long)st->addr), -1;
	memcpy(st->orig, code, 5);
	st->plen = 5;
	st->len = len;
	st->ool = va;
	if (st->flags & LK_SF_FAST) {	/* incq disp32 (set by the blob); displaced; back */
		uint64_t fva;
		uint8_t *f = tramp_alloc(s, LK_FAST_INCQ_LEN + 16 * len + 5, &fva);
		if (!f)
			return mt_seterr(err, errlen, "no room for a trampoline"), -1;
		memcpy(f, "\x48\xff\x04\x25\0\0\0\0", LK_FAST_INCQ_LEN);
		if (emit_displaced(k, cs, st->addr, len, f + LK_FAST_INCQ_LEN,
				   fva + LK_FAST_INCQ_LEN) < 0)
			return mt_seterr(err, errlen, "cannot relocate the entry at 0x%llx",
					 (unsigned long long)st->addr), -1;
		st->fast = fva;
	}
	return 0;		/* compiled code: place_jits() */
}

/* Out-of-line copy of the first instruction at st->addr, then jmp back. */
static int int3_entry(struct site_set *s, struct mt_kimg *k, csh cs,
		      struct lk_site *st, char *err, size_t errlen)
{
	const uint8_t *code = mt_kimg_bytes(k, st->addr, 16);
	cs_insn *in = NULL;
	uint64_t va;
	uint8_t *t = tramp_alloc(s, 32, &va);
	int n, ends;

	if (!code || !t)
		return mt_seterr(err, errlen, "no room for an out-of-line copy"), -1;
	if (cs_disasm(cs, code, 16, st->addr, 1, &in) != 1)
		return mt_seterr(err, errlen, "undecodable instruction at 0x%llx",
				 (unsigned long long)st->addr), -1;
	n = reloc_insn(in, va, t, &ends);
	if (n < 0 || (!ends && put_jmp(t + n, va + n, st->addr + in->size) < 0)) {
		mt_seterr(err, errlen, "cannot relocate '%s %s' at 0x%llx for an int3 probe",
			  in->mnemonic, in->op_str, (unsigned long long)st->addr);
		cs_free(in, 1);
		return -1;
	}
	st->orig[0] = code[0];
	st->patch[0] = 0xcc;
	st->plen = 1;
	st->len = in->size;
	st->ool = va;
	cs_free(in, 1);
	return 0;
}

static int ret_site(struct mt_kimg *k, struct lk_site *st, char *err, size_t errlen)
{
	const uint8_t *b = mt_kimg_bytes(k, st->addr, 3);
	unsigned o = 0;

	if (!b)
		return mt_seterr(err, errlen, "no bytes at 0x%llx", (unsigned long long)st->addr), -1;
	if (b[0] == 0xf3 || b[0] == 0xf2)		/* rep ret */
		o = 1;
	if (b[o] == 0xc2)
		st->ret_imm = (uint32_t)(b[o + 1] | b[o + 2] << 8);
	else if (b[o] != 0xc3)
		return mt_seterr(err, errlen, "not a near ret at 0x%llx",
				 (unsigned long long)st->addr), -1;
	st->orig[0] = b[0];
	st->patch[0] = 0xcc;
	st->plen = 1;
	st->len = 1;
	return 0;
}

/* Displaced instructions before the ret, then "push $index; jmp ret vector". */
static int jmp_ret(struct site_set *s, struct mt_kimg *k, struct lk_site *st,
		   uint32_t index, const struct site_req *r, char *err, size_t errlen)
{
	uint32_t pre = (uint32_t)(r->ret_at - r->addr), idx = index;
	const uint8_t *code = mt_kimg_bytes(k, r->addr, r->range);
	uint64_t va;
	uint8_t *t = tramp_alloc(s, pre + 10, &va);

	if (!code || !t || r->range < 5)
		return mt_seterr(err, errlen, "no room for a return trampoline"), -1;
	memcpy(t, code, pre);
	t[pre] = 0x68;
	memcpy(t + pre + 1, &idx, 4);
	if (put_jmp(t + pre + 5, va + pre + 5, s->fbt_ret_va) < 0 ||
	    put_jmp(st->patch, st->addr, va) < 0)
		return mt_seterr(err, errlen, "return trampoline out of rel32 range"), -1;
	memcpy(st->orig, code, 5);
	st->plen = 5;
	st->len = r->range;
	st->ool = va;
	/* compiled (place_jits()): only for a plain ret, the code's own */
	if (pre + 1 != r->range || code[pre] != 0xc3)
		st->flags &= ~LK_SF_JIT;
	return 0;
}

/*
 * A jmp site's compiled code: an entry's is "code; displaced; back", a
 * return's "displaced; code; ret".  0, or -1 when it does not fit.
 */
static int jit_site(struct site_set *s, struct mt_kimg *k, csh cs, struct lk_site *st,
		    const struct site_req *r)
{
	uint32_t end;
	struct lk_jit *h;

	if (st->kind == LK_SK_JMPRET) {
		uint32_t pre = (uint32_t)(r->ret_at - r->addr);
		const uint8_t *code = mt_kimg_bytes(k, r->addr, r->range);
		return code && jit_place(s, st, r->jit, code, pre, st->ool + pre, 0, &end) ? 0 : -1;
	}
	if (!(h = jit_place(s, st, r->jit, NULL, 0, st->ool, 16 * st->len + 5, &end)))
		return -1;
	for (uint32_t c = 0; c < h->ncopy; c++) {
		uint32_t at = end + c * h->stride;
		if (emit_displaced(k, cs, st->addr, st->len, (uint8_t *)h + at, st->fast + at) < 0)
			return -1;
	}
	return 0;
}

/*
 * Compiled code goes in after every site's trampoline: the general path
 * must exist for all sites, compiled code is a faster option.  A site
 * whose code does not fit keeps the interpreter and is listed in
 * s->nofit (said under -S and -v).  reqof[i]: site i's request.
 */
static int place_jits(struct site_set *s, struct mt_kimg *k, csh cs, const size_t *reqof)
{
	free(s->nofit);
	s->nnofit = 0;
	if (!(s->nofit = calloc(s->nsites ? s->nsites : 1, sizeof *s->nofit)))
		return -1;
	for (uint32_t i = 0; i < s->nsites; i++) {
		struct lk_site *st = &s->sites[i];
		const struct site_req *r = &s->req[reqof[i]];
		if (!(st->flags & LK_SF_JIT))
			continue;
		if (!r->jit || (st->kind != LK_SK_JMP && st->kind != LK_SK_JMPRET)) {
			st->flags &= ~LK_SF_JIT;
			continue;
		}
		if (jit_site(s, k, cs, st, r) == 0)
			continue;
		st->flags &= ~LK_SF_JIT;
		s->nofit[s->nnofit++] = i;
	}
	return 0;
}

/*
 * An int3 site inside a function (kinst, inline entries): the frame rule
 * of its instruction from the kernel's .eh_frame (lkabi.h, LK_SF_FRAME),
 * or LK_SF_NOFRAME when there is none: no caller rather than a guess.
 */
static void site_frame(struct mt_kimg *k, const struct site_req *r, struct lk_site *st)
{
	const struct mt_kfunc *f = mt_kimg_func_at(k, r->addr);
	struct mt_kframe fr;

	if (f && f->addr == r->addr)
		return;			/* an entry: return address at rsp */
	if (mt_kimg_frame(k, r->addr, &fr) < 0 || fr.cfa_off != (int32_t)fr.cfa_off ||
	    fr.rbp_off != (int32_t)fr.rbp_off) {
		st->flags |= LK_SF_NOFRAME;
		return;
	}
	st->flags |= LK_SF_FRAME;
	if (fr.cfa_reg == MT_KREG_RBP)
		st->flags |= LK_SF_CFA_RBP;
	st->cfa_off = (int32_t)fr.cfa_off;
	if (fr.rbp_saved) {
		st->flags |= LK_SF_RBP_SAVED;
		st->rbp_off = (int32_t)fr.rbp_off;
	}
}

/* Two probes at one int3 must read their raw arguments alike: from the
   registers an SDT site names (LK_SF_REGARGS), from a <sys/sdt.h> note's
   operands (LK_SF_UARGS, one note per site), or as an entry's. */
#define SF_ARGS (LK_SF_REGARGS | LK_SF_UARGS)
static int regargs_clash(const struct lk_site *st, const struct site_req *first,
			 const struct site_req *r)
{
	uint32_t a = st->flags & SF_ARGS, b = r->flags & SF_ARGS;

	if (!(st->flags & LK_SF_FIRE) || !(r->flags & LK_SF_FIRE) || (!a && !b) ||
	    first->noargs || r->noargs)
		return 0;
	return a != b || memcmp(st->argreg, r->argreg, sizeof st->argreg) != 0;
}

/* LK_SF_UARGS: the site's operands go to the trampoline area. */
static int site_uargs(struct site_set *s, struct lk_site *st, const struct site_req *r)
{
	uint8_t *p;

	if (!(r->flags & LK_SF_UARGS) || (st->flags & LK_SF_COUNTER))
		return 0;
	if (!(p = tramp_alloc(s, r->nuargs * (uint32_t)sizeof *r->uargs, &st->uargs)))
		return -1;
	memcpy(p, r->uargs, r->nuargs * sizeof *r->uargs);
	st->nuargs = r->nuargs;
	return 0;
}

/* Sort order kept: merge requests into sites, build their trampolines,
   check that no two overlap.  reqof[i]: the request site i came from. */
static int build_all(struct site_set *s, struct mt_kimg *k, csh cs, size_t *reqof,
		     char *err, size_t errlen)
{
	uint32_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < s->nreq && rc == 0; i++) {
		const struct site_req *r = &s->req[i];
		struct lk_site *st;

		if (n && s->sites[n - 1].addr == r->addr) {	/* merge */
			st = &s->sites[n - 1];
			if (regargs_clash(st, &s->req[reqof[n - 1]], r))
				return mt_seterr(err, errlen,
					"two probes at 0x%llx take their arguments from different "
					"registers", (unsigned long long)r->addr), -1;
			if (r->flags & LK_SF_REGARGS)
				memcpy(st->argreg, r->argreg, sizeof st->argreg);
			if (!st->nuargs && site_uargs(s, st, r) < 0)
				return mt_seterr(err, errlen,
					"trampoline area full"), -1;
			if (st->kind == LK_SK_RET && r->kind == LK_SK_INT3 &&
			    (r->flags & LK_SF_FIRE)) {	/* entry is a ret */
				st->rprobe = st->probe;
				st->probe = r->probe;
				st->flags |= LK_SF_FIRE_RET | (r->flags & ~LK_SF_FIRE);
				continue;
			}
			if ((st->kind == LK_SK_RET) != (r->kind == LK_SK_RET))
				return mt_seterr(err, errlen,
					"two kinds of site at 0x%llx", (unsigned long long)r->addr), -1;
			/* a second probe at one instruction: kinst:0 and fbt,
			   two aliases, an SDT probe; more (inline instances
			   starting together) in the site's extra list */
			if ((st->flags & LK_SF_FIRE) && (r->flags & LK_SF_FIRE)) {
				if (r->probe == st->probe ||
				    ((st->flags & LK_SF_FIRE2) && r->probe == st->probe2))
					continue;
				if (st->flags & LK_SF_FIRE2) {
					if (add_extra(s, st, r->probe) < 0)
						return mt_seterr(err, errlen,
							"more than %u probes at 0x%llx",
							LK_SITE_EXTRA_MAX + 2,
							(unsigned long long)r->addr), -1;
					continue;
				}
				st->probe2 = r->probe;
				st->flags |= (r->flags & ~LK_SF_FIRE) | LK_SF_FIRE2;
				if (!s->req[reqof[n - 1]].jit_all)
					st->flags &= ~(LK_SF_FAST | LK_SF_JIT);
				if (r->flags & LK_SF_COUNTER) {
					st->cnt_addr = r->cnt_addr;
					st->cnt_inc = r->cnt_inc;
				}
				continue;
			}
			st->flags |= r->flags;
			st->flags &= ~(LK_SF_FAST | LK_SF_JIT);
			if (r->flags & LK_SF_FIRE)
				st->probe = r->probe;
			if (r->flags & LK_SF_COUNTER) {
				st->cnt_addr = r->cnt_addr;
				st->cnt_inc = r->cnt_inc;
			}
			continue;
		}
		if (n >= LK_SITES_MAX)
			return mt_seterr(err, errlen, "more than %u probe sites",
							LK_SITES_MAX), -1;
		st = &s->sites[n];
		reqof[n] = i;
		st->addr = r->addr;
		st->kind = r->kind;
		st->flags = r->flags;
		st->probe = r->probe;
		st->func_off = r->func_off;
		st->fast_aggid = r->fast_aggid;
		memcpy(st->argreg, r->argreg, sizeof st->argreg);
		st->cnt_addr = r->cnt_addr;
		st->cnt_inc = r->cnt_inc;
		if (site_uargs(s, st, r) < 0)
			return mt_seterr(err, errlen, "trampoline area full"), -1;
		/* a later request for this address (internal hook, alias) must
		   not lose the full path: decide FAST only if none follows */
		if (i + 1 < s->nreq && s->req[i + 1].addr == r->addr && !r->jit_all)
			st->flags &= ~(LK_SF_FAST | LK_SF_JIT);
		if (r->kind == LK_SK_JMP) {
			rc = jmp_entry(s, k, cs, st, n, r->range ? r->range : r->f->displaced,
				       err, errlen);
			site_frame(k, r, st);	/* an SDT instruction's */
		}
		else if (r->kind == LK_SK_JMPRET)
			rc = jmp_ret(s, k, st, n, r, err, errlen);
		else if (r->kind == LK_SK_INT3) {
			rc = int3_entry(s, k, cs, st, err, errlen);
			site_frame(k, r, st);
		}
		else
			rc = ret_site(k, st, err, errlen);
		n++;
	}
	s->nsites = n;
	for (uint32_t i = 1; rc == 0 && i < n; i++) {
		const struct lk_site *a = &s->sites[i - 1];
		uint32_t cover = a->kind == LK_SK_JMP || a->kind == LK_SK_JMPRET ? a->len : 1;
		if (s->sites[i].addr < a->addr + cover)
			return mt_seterr(err, errlen, "probe sites overlap at 0x%llx (kind %u, "
					 "after kind %u at 0x%llx + %u)",
					 (unsigned long long)s->sites[i].addr, s->sites[i].kind,
					 a->kind, (unsigned long long)a->addr, cover), -1;
	}
	return rc;
}

int sites_build(struct site_set *s, struct mt_kimg *k, char *err, size_t errlen)
{
	csh cs;
	int rc;
	size_t *reqof;

	sites_sort(s);
	free(s->sites);
	s->sites = calloc(s->nreq ? s->nreq : 1, sizeof *s->sites);
	if (!s->tramp)
		s->tramp = calloc(1, LK_TRAMP_MAX);
	s->tramp_used = 0;
	if (!s->sites || !s->tramp)
		return mt_seterr(err, errlen, "out of memory"), -1;
	if (x86_open(&cs) < 0)
		return mt_seterr(err, errlen, "capstone: cannot open the decoder"), -1;
	if (!(reqof = calloc(s->nreq ? s->nreq : 1, sizeof *reqof)))
		return cs_close(&cs), mt_seterr(err, errlen, "out of memory"), -1;
	rc = build_all(s, k, cs, reqof, err, errlen);
	if (rc == 0 && place_jits(s, k, cs, reqof) < 0) {
		mt_seterr(err, errlen, "out of memory");
		rc = -1;
	}
	free(reqof);
	cs_close(&cs);
	return rc;
}
