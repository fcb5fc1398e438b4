/*
 * lockstat's spin probes on a kernel whose simple locks are inlined (the
 * SMP kernel: i386/i386/lock.h's _simple_lock, "while (xchg(l, 1)) while
 * (l->lock_data) cpu_pause();" at every use), found in the text by what
 * the code does, not by one build's register allocation:
 *   a spin loop is a `pause` followed by a load of the lock word, a test
 *     of it and a jump back while it is non-zero;
 *   an acquisition is an `xchg reg, mem` whose register is then tested
 *     and branched on, one side of the branch reaching a spin loop within
 *     SPIN_REACH instructions: the other side is where the lock is held.
 * spin-acquire fires there (once per acquisition, however often the xchg
 * was retried), spin-spin at each spin loop's pause (once per turn of the
 * loop); args[0] of both is the lock, the effective address of the xchg's
 * (the loop's load's) memory operand computed from the site's registers
 * (LK_UA_ADDR).  A probe is one function's sites, as DTrace's lockstat
 * probes are per function.  An xchg that looks like an acquisition but
 * whose held side cannot take a probe is counted as missed and said so
 * (sdt_miss: a warning when a program names spin-acquire).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/live_int.h"

#define SPIN_REACH	8	/* instructions from a branch to its spin loop */
#define SPIN_TEST	3	/* instructions from the xchg to its jcc */

#define SIMPLE		{ 0, "struct slock *", NULL }

static const struct sdt_probe spin_probes[2] = {
	{ NULL, "spin-acquire", { { NULL, 0, NULL, { NULL } } }, { SIMPLE },
	  "a thread holds the inlined simple lock args[0] (after any spinning)" },
	{ NULL, "spin-spin", { { NULL, 0, NULL, { NULL } } }, { SIMPLE },
	  "one turn of the wait loop of the busy simple lock args[0]" },
};

struct spin_site {
	const struct mt_kfunc *f;
	uint64_t addr;
	int kind;		/* 0 spin-acquire, 1 spin-spin */
	struct lk_uarg lock;
};

struct spin {
	struct lk_uarg *args;	/* the sites' operands, one each */
	struct spin_site *v;
	size_t n, cap;
	uint32_t missed[2];	/* sites that cannot take a probe, per kind */
	uint64_t miss_at[2];
	uint32_t refused;	/* acquisitions in functions never patched */
};

/* The memory operand of in as an address operand; -1 if it has none or
   one with a segment. */
static int mem_operand(const cs_insn *in, struct lk_uarg *u)
{
	const cs_x86 *x = &in->detail->x86;
	int w;

	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *m = &x->operands[i];
		if (m->type != X86_OP_MEM || m->mem.segment != X86_REG_INVALID)
			continue;
		*u = (struct lk_uarg){ .size = 8, .kind = LK_UA_ADDR, .reg = LK_UA_NOREG,
				       .idx = LK_UA_NOREG, .scale = (uint8_t)m->mem.scale,
				       .val = m->mem.disp };
		if (m->mem.base == X86_REG_RIP) {
			u->kind = LK_UA_IMM;
			u->val = (int64_t)(in->address + in->size) + m->mem.disp;
			return 0;
		}
		if (m->mem.base != X86_REG_INVALID &&
		    (u->reg = (uint8_t)x86_dwarf_reg(m->mem.base, &w)) == 0xff)
			return -1;
		if (m->mem.index != X86_REG_INVALID &&
		    (u->idx = (uint8_t)x86_dwarf_reg(m->mem.index, &w)) == 0xff)
			return -1;
		return 0;
	}
	return -1;
}

/* The register operand of a two-operand instruction (DWARF), -1 if none. */
static int reg_operand(const cs_insn *in, int i)
{
	const cs_x86 *x = &in->detail->x86;
	int w;

	return x->op_count == 2 && x->operands[i].type == X86_OP_REG ?
		x86_dwarf_reg(x->operands[i].reg, &w) : -1;
}

/* `test r, r` of DWARF register r. */
static int tests(const cs_insn *in, int r)
{
	return in->id == X86_INS_TEST && r >= 0 && reg_operand(in, 0) == r &&
	       reg_operand(in, 1) == r;
}

/* in[i] loads the lock word of a spin loop, one of GCC's two shapes of
   lock.h's wait: "pause; mov mem, r; test r, r; jne" back to the pause,
   or "mov mem, r; test r, r; je out; pause; jmp" back to the load.  The
   index of its pause (the lock operand in *u), n if it is none. */
static size_t spin_loop(const cs_insn *in, size_t i, size_t n, struct lk_uarg *u)
{
	uint64_t t;
	int via = 0;

	if (i + 3 < n && in[i].id == X86_INS_MOV && in[i + 1].id == X86_INS_MOV &&
	    reg_operand(&in[i], 0) >= 0 && mem_operand(&in[i], u) == 0 &&
	    mem_operand(&in[i + 1], u) == 0 && u->reg == reg_operand(&in[i], 0))
		via = 1;	/* the lock's address reloaded from memory first */
	i += (size_t)via;
	if (i + 2 >= n || in[i].id != X86_INS_MOV || !tests(&in[i + 1], reg_operand(&in[i], 0)) ||
	    mem_operand(&in[i], u) < 0)
		return n;
	if (via)
		u->kind = 0;	/* not an operand a site can compute */
	i -= (size_t)via;
	t = x86_branch_target(&in[i + 2 + via]);
	if (i > 0 && in[i - 1].id == X86_INS_PAUSE && in[i + 2 + via].id == X86_INS_JNE &&
	    t && t <= in[i - 1].address)
		return i - 1;
	if (i + 4 + via < n && in[i + 2 + via].id == X86_INS_JE &&
	    in[i + 3 + via].id == X86_INS_PAUSE && in[i + 4 + via].id == X86_INS_JMP &&
	    x86_branch_target(&in[i + 4 + via]) == in[i].address)
		return i + 3 + via;
	return n;
}

/* The index of the instruction at address a, n if none. */
static size_t at(const cs_insn *in, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (in[mid].address < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && in[lo].address == a ? lo : n;
}

/* The index of a spin loop's pause within SPIN_REACH instructions from
   address a, n if none; its lock operand in *u. */
static size_t reaches_spin(const cs_insn *in, size_t n, uint64_t a, struct lk_uarg *u)
{
	size_t p = n;

	for (size_t j = at(in, n, a), k = 0; j < n && k <= SPIN_REACH && p == n; j++, k++)
		p = spin_loop(in, j, n, u);
	return p;
}

/* Where a branch to a really goes: through up to two `jmp`s. */
static uint64_t through_jmps(const cs_insn *in, size_t n, uint64_t a)
{
	for (int hop = 0; hop < 2; hop++) {
		size_t i = at(in, n, a);
		if (i == n || in[i].id != X86_INS_JMP || !x86_branch_target(&in[i]))
			break;
		a = x86_branch_target(&in[i]);
	}
	return a;
}

/* in writes DWARF register r (its first operand). */
static int writes(const cs_insn *in, int r)
{
	return r != LK_UA_NOREG && in->detail->x86.op_count >= 1 && reg_operand(in, 0) == r;
}


/* in[i] is an acquiring xchg: the address where the lock is held in
   *held, 0 if it is not one; -1 if it is one whose held side cannot be a
   site (a register of the operand overwritten, not an int3-able place). */
static int acquisition(const cs_insn *in, size_t i, size_t n, struct lk_uarg *u,
		       uint64_t *held, size_t *spin, struct lk_uarg *w)
{
	int r = in[i].id == X86_INS_XCHG ? reg_operand(&in[i], 0) : -1;
	uint64_t t, fall;
	size_t j = i + 1, h;
	int ends;

	if (r < 0)
		r = in[i].id == X86_INS_XCHG ? reg_operand(&in[i], 1) : -1;
	if (r < 0 || mem_operand(&in[i], u) < 0)
		return 0;
	while (j < n && j <= i + SPIN_TEST && !tests(&in[j], r) && !x86_is_branch(&in[j]))
		j++;
	if (j + 1 >= n || j > i + SPIN_TEST ||
	    (in[j + 1].id != X86_INS_JNE && in[j + 1].id != X86_INS_JE))
		return 0;
	t = x86_branch_target(&in[j + 1]);
	fall = in[j + 1].address + in[j + 1].size;
	*held = through_jmps(in, n, in[j + 1].id == X86_INS_JNE ? fall : t);
	*spin = reaches_spin(in, n, through_jmps(in, n, in[j + 1].id == X86_INS_JNE ? t : fall), w);
	if (*spin == n)
		return 0;
	if (u->kind == LK_UA_ADDR && (u->reg == r || u->idx == r))
		return -1;
	for (size_t k = i + 1; k < j; k++)	/* the operand's registers kept */
		if (u->kind == LK_UA_ADDR && (writes(&in[k], u->reg) || writes(&in[k], u->idx)))
			return -1;
	h = at(in, n, *held);
	return h < n && reloc_insn(&in[h], LIVE_TRAMP_VA,
				   NULL, &ends) >= 0 ? 1 : -1;
}

static int push(struct spin *s, const struct mt_kfunc *f, uint64_t addr, int kind,
		const struct lk_uarg *u)
{
	for (size_t i = s->n; i-- > 0 && s->v[i].f == f;)
		if (s->v[i].addr == addr && s->v[i].kind == kind)
			return 0;	/* two xchgs of one lock: one place held */
	if (s->n == s->cap) {
		struct spin_site *v = realloc(s->v, (s->cap * 2 + 64) * sizeof *v);
		if (!v)
			return -1;
		s->v = v;
		s->cap = s->cap * 2 + 64;
	}
	s->v[s->n++] = (struct spin_site){ .f = f, .addr = addr, .kind = kind, .lock = *u };
	return 0;
}

/* f's spin sites into s; -1 out of memory. */
static int scan(struct live *l, csh cs, const struct mt_kfunc *f, struct spin *s)
{
	const uint8_t *code = f->size ? mt_kimg_bytes(l->k, f->addr, f->size) : NULL;
	cs_insn *in = NULL;
	size_t n;
	int rc = 0, ends;

	if (!code || f->inline_only || !memmem(code, f->size, "\xf3\x90", 2))
		return 0;
	n = cs_disasm(cs, code, f->size, f->addr, 0, &in);
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct lk_uarg u, w;
		uint64_t held;
		size_t spin;
		int a = acquisition(in, i, n, &u, &held, &spin, &w);
		if (a && f->patch == MT_PATCH_REFUSED) {
			s->refused++;
			continue;
		}
		if (a < 0 && !s->missed[0]++)
			s->miss_at[0] = in[i].address;
		if (a <= 0)
			continue;
		rc = push(s, f, held, 0, &u);
		if (rc == 0 && w.kind && reloc_insn(&in[spin], LIVE_TRAMP_VA, NULL, &ends) >= 0)
			rc = push(s, f, in[spin].address, 1, &w);
		else if (rc == 0 && !s->missed[1]++)
			s->miss_at[1] = in[spin].address;
	}
	if (n)
		cs_free(in, n);
	return rc;
}

/* The probes of s's sites, their operands in s->args; -1 out of memory. */
static int make_probes(struct live *l, struct spin *s)
{
	if (!s->n || !(s->args = calloc(s->n, sizeof *s->args)))
		return s->n ? -1 : 0;
	for (int kind = 0; kind < 2; kind++) {
		struct lprobe *p = NULL;
		for (size_t i = 0; i < s->n; i++) {
			struct spin_site *v = &s->v[i];
			struct sdt_loc *lo;
			if (v->kind != kind)
				continue;
			if (!p || p->f != v->f) {
				p = live_probe_add(l, "lockstat", v->f->name, spin_probes[kind].name,
						   MT_PK_OTHER, 0, v->f);
				if (!p)
					return -1;
				p->sdt = &spin_probes[kind];
			}
			if (!(lo = realloc(p->locs, (p->nlocs + 1) * sizeof *lo)))
				return -1;
			p->locs = lo;
			s->args[i] = v->lock;
			p->locs[p->nlocs++] = (struct sdt_loc){ .addr = v->addr, .f = v->f,
				.where = SDT_SPIN, .uargs = &s->args[i], .nuargs = 1 };
		}
	}
	return 0;
}

static int spin_populate(struct live *l)
{
	struct spin *s;
	size_t n = l->k ? mt_kimg_nfuncs(l->k) : 0;
	char why[160];
	int rc = 0;
	csh cs;

	if (!n || mt_kimg_lookup(l->k, "_simple_lock") || x86_open(&cs) < 0)
		return 0;	/* MACH_SLOCKS: prov_lockstat.c's functions */
	if (!(s = calloc(1, sizeof *s))) {
		cs_close(&cs);
		return -1;
	}
	l->spin = s;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = scan(l, cs, mt_kimg_func(l->k, i), s);
	cs_close(&cs);
	if (rc == 0)
		rc = make_probes(l, s);
	for (int k = 0; k < 2 && rc == 0; k++) {
		if (!s->missed[k] && !s->refused)
			continue;
		snprintf(why, sizeof why, "%u %s: %u where %s, %u in functions never patched",
			 s->missed[k] + s->refused, k ? "spin loops untraced" :
			 "inlined simple_lock acquisitions untraced", s->missed[k],
			 k ? "the lock's address is reloaded" : "no int3 can go", s->refused);
		rc = sdt_miss_add(l, "lockstat", &spin_probes[k], s->n != 0, why);
	}
	free(s->v);
	s->v = NULL;
	return rc;
}

void spin_free(struct live *l)
{
	if (!l->spin)
		return;
	free(l->spin->args);
	free(l->spin);
	l->spin = NULL;
}

const struct live_provider live_prov_spin = {
	.name = "lockstat",
	.populate = spin_populate,
};
