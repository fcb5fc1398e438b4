/*
 * Which entries and rets can take a jmp (sites.c builds them).  A jmp
 * displaces the ret and whole instructions before it; they run in the
 * trampoline, so they must be position independent, must not include
 * the function's entry site, and nothing may branch into them past their
 * first byte.  Branch targets are taken conservatively from the whole
 * kernel: direct branch/call targets and every immediate pointing into the
 * text, plus every 4- or 8-byte value of the data sections that does
 * (jump tables, function and recovery tables).  More targets only mean
 * more int3 returns.
 */
#include <stdlib.h>
#include <string.h>

#include "targets/mach/image/kimg_int.h"
#include "targets/mach/live/live_int.h"

#define RET_SCAN	24	/* instructions remembered before a ret */

/* No branch of any kind, no rip-relative operand: runs anywhere. */
static int position_independent(const cs_insn *in)
{
	return !x86_is_branch(in) && !x86_rip_relative(in);
}

static void add_target(struct site_set *s, size_t *cap, uint64_t v)
{
	if (s->ntargets == *cap) {
		size_t n = *cap ? 2 * *cap : 65536;
		uint64_t *p = realloc(s->targets, n * sizeof *p);
		if (!p)
			return;
		s->targets = p;
		*cap = n;
	}
	s->targets[s->ntargets++] = v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void collect_targets(struct site_set *s, struct mt_kimg *k, csh cs)
{
	uint64_t lo = 0, hi = 0;
	size_t cap = 0;
	cs_insn *in = cs_malloc(cs);

	s->targets_done = 1;
	if (!in || mt_kimg_symbol(k, "_start", &lo) < 0 || mt_kimg_symbol(k, "etext", &hi) < 0)
		goto out;
	for (size_t i = 0; i < mt_kimg_nfuncs(k); i++) {
		const struct mt_kfunc *f = mt_kimg_func(k, i);
		const uint8_t *code = f->size && !f->inline_only ?
			mt_kimg_bytes(k, f->addr, f->size) : NULL;
		size_t left = f->size;
		uint64_t a = f->addr;

		while (code && left && cs_disasm_iter(cs, &code, &left, &a, in))
			for (int o = 0; o < in->detail->x86.op_count; o++) {
				uint64_t v = (uint64_t)in->detail->x86.operands[o].imm;
				if (in->detail->x86.operands[o].type == X86_OP_IMM && v >= lo && v < hi)
					add_target(s, &cap, v);
			}
	}
	for (size_t i = 0; i < k->nsecs; i++) {
		const struct kimg_section *sec = &k->secs[i];
		if (sec->exec || !sec->data)
			continue;
		for (uint64_t o = 0; o + 4 <= sec->size; o += 4) {
			int32_t d;
			uint64_t q = 0;
			memcpy(&d, sec->data + o, 4);
			if ((uint64_t)(int64_t)d >= lo && (uint64_t)(int64_t)d < hi)
				add_target(s, &cap, (uint64_t)(int64_t)d);
			if (o + 8 <= sec->size)
				memcpy(&q, sec->data + o, 8);
			if (q >= lo && q < hi)
				add_target(s, &cap, q);
		}
	}
	qsort(s->targets, s->ntargets, sizeof *s->targets, cmp_u64);
out:
	if (in)
		cs_free(in, 1);
}

/* Is there a target t with lo < t <= hi? */
static int target_within(const struct site_set *s, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = s->ntargets;

	while (a < b) {
		size_t m = (a + b) / 2;
		if (s->targets[m] <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a < s->ntargets && s->targets[a] <= hi;
}

unsigned sites_ret_range(struct site_set *s, struct mt_kimg *k, const struct mt_kfunc *f,
			 uint32_t ret_off, uint64_t *start)
{
	uint32_t off[RET_SCAN], size[RET_SCAN], pi[RET_SCAN];
	const uint8_t *code = mt_kimg_bytes(k, f->addr, f->size);
	uint64_t a = f->addr, entry_end;
	size_t left = f->size, n = 0;
	unsigned len = 0;
	cs_insn *in;
	csh cs;
	int found = 0;

	if (!code || ret_off >= f->size || x86_open(&cs) < 0)
		return 0;
	if (!s->targets_done)
		collect_targets(s, k, cs);
	in = cs_malloc(cs);
	while (in && left && cs_disasm_iter(cs, &code, &left, &a, in)) {
		uint32_t o = (uint32_t)(in->address - f->addr);
		if (o == ret_off) {
			found = x86_in_group(in, CS_GRP_RET) && in->bytes[in->size - 1] == 0xc3;
			len = in->size;
			break;
		}
		if (o > ret_off)
			break;
		off[n % RET_SCAN] = o;
		size[n % RET_SCAN] = in->size;
		pi[n % RET_SCAN] = (uint32_t)position_independent(in);
		n++;
	}
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	if (!found)
		return 0;
	/* walk back over whole position-independent instructions */
	for (size_t j = n; len < 5; j--) {
		if (j == 0 || n - j >= RET_SCAN || !pi[(j - 1) % RET_SCAN])
			return 0;
		len += size[(j - 1) % RET_SCAN];
		*start = f->addr + off[(j - 1) % RET_SCAN];
	}
	entry_end = sites_entry_range(s, k, f);
	entry_end = f->addr + (entry_end ? entry_end : f->first_len ? f->first_len : 1);
	if (*start < entry_end || target_within(s, *start, f->addr + ret_off))
		return 0;
	return len;
}


int sites_insn_offsets(struct mt_kimg *k, const struct mt_kfunc *f, uint32_t *offs, int max)
{
	const uint8_t *code = f->size ? mt_kimg_bytes(k, f->addr, f->size) : NULL;
	uint64_t a = f->addr;
	size_t left = f->size;
	cs_insn *in;
	csh cs;
	int n = 0, ends;

	if (!code || x86_open(&cs) < 0)
		return -1;
	in = cs_malloc(cs);
	while (in && left && n < max && cs_disasm_iter(cs, &code, &left, &a, in)) {
		/* the int3 site's test (sites.c int3_entry): what cannot run
		   out of line is no probe, so -l lists only what enables */
		if (reloc_insn(in, LIVE_TRAMP_VA,
			       NULL, &ends) < 0)
			continue;
		offs[n++] = (uint32_t)(in->address - f->addr);
	}
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	return left && n < max ? -1 : n;
}

/*
 * Bytes a jmp at addr in f displaces: whole instructions from addr
 * covering 5 bytes, each relocatable (reloc.c), none a ret (its own
 * return site) and none but the last ending the flow, within f, with
 * nothing branching into them past addr; 0 if there are none.
 */
static unsigned jmp_range(struct site_set *s, struct mt_kimg *k, const struct mt_kfunc *f,
			  uint64_t addr)
{
	const uint8_t *code = mt_kimg_bytes(k, f->addr, f->size);
	size_t left = f->size;
	uint64_t a = f->addr;
	unsigned len = 0;
	cs_insn *in;
	csh cs;
	int ends = 0, ok = 1, at = 0;

	if (!code || x86_open(&cs) < 0)
		return 0;
	if (!s->targets_done)
		collect_targets(s, k, cs);
	in = cs_malloc(cs);
	while (in && ok && len < 5 && left && cs_disasm_iter(cs, &code, &left, &a, in)) {
		uint64_t tgt = x86_branch_target(in);
		if (!at && in->address < addr)
			continue;
		if (in->address != addr && !at)
			ok = 0;			/* addr is no instruction's start */
		at = 1;
		if (ends || reloc_insn(in, 0, NULL, &ends) < 0 || x86_in_group(in, CS_GRP_RET))
			ok = 0;			/* flow ended before 5 bytes, or a
						   ret (its own return site) */
		if (tgt > addr && tgt < addr + 16)
			ok = 0;			/* branches into its own first bytes */
		len += in->size;
	}
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	if (!ok || !at || len < 5 || addr + len > f->addr + f->size ||
	    target_within(s, addr, addr + len - 1))
		return 0;
	return len;
}

/*
 * Bytes a jmp at f's entry displaces when its first instructions can be
 * relocated (reloc.c) although kimg gave the entry an int3 (rip-relative
 * operand, branch or call in the first 5 bytes); 0 if they cannot.
 */
unsigned sites_entry_range(struct site_set *s, struct mt_kimg *k, const struct mt_kfunc *f)
{
	if (f->patch == MT_PATCH_JMP)
		return f->displaced;
	if (f->size < 5 || f->inline_only)
		return 0;
	return jmp_range(s, k, f, f->addr);
}

unsigned sites_insn_range(struct site_set *s, struct mt_kimg *k, const struct mt_kfunc *f,
			  uint64_t addr)
{
	if (!f->size || f->inline_only || addr <= f->addr)
		return 0;
	return jmp_range(s, k, f, addr);
}
