/*
 * kinst::FUNC:entry and kinst::FUNC:return of a function GNU Mach
 * inlines: a site for each inlined copy (DWARF's DW_TAG_inlined_subroutine
 * whose origin is FUNC) at its entry pc, and for :return at each of its
 * exits (find_exits), plus the fbt sites of FUNC's out-of-line copy if it
 * has one.  The sites are the probe's locs (sdt.h, where
 * SDT_INLINE_ENTRY/EXIT) and plan.c places them as an SDT probe's.
 *
 * Exits are those of the code run after the entry (reach), one site per
 * address however many copies share it.  They are exact only where the
 * code says so: an exit site that other code of the caller also reaches
 * counts those arrivals too (LOC_SHARED), a copy that also leaves where
 * no site can go is not counted there (LOC_LEAVES), nor where code
 * joining the copy after its entry also leaves (LOC_JOINED); -lv says
 * which (kinline_print_sites).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/image/dwloc.h"
#include "targets/mach/live/live_int.h"

#define COPY_MAXRANGES	16
#define COPY_MAXEXITS	16
#define LOC_LEAVES	1	/* the copy leaves other than at its exits */
#define LOC_SHARED	2	/* other code jumps to this exit */
#define LOC_JOINED	4	/* code enters the copy other than at its entry */

/* One instruction of a caller, as exits need it. */
struct cinsn {
	uint64_t addr, end, target;	/* target: a direct jmp's or jcc's, else 0 */
	uint8_t leaves;			/* ret, int, iret, indirect jmp */
	uint8_t jmp;			/* unconditional: no fall-through */
	uint8_t nofall;			/* jmp, leaves, or a call of a noreturn
					   function (Assert): never reaches end */
	uint8_t dead;			/* padding after a nofall: never runs */
	uint8_t ok;			/* an int3 site may go here */
};

/* One inlined copy's sites. */
struct copy {
	const struct mt_kfunc *caller;
	uint64_t entry;			/* 0: no site (why says) */
	uint64_t exit[COPY_MAXEXITS];
	uint8_t exitflags[COPY_MAXEXITS];	/* LOC_SHARED */
	int nexits;
	int leaves;			/* LOC_LEAVES */
	const char *why;
};

/* Decode f's instructions into *out (malloc'd); their count, -1 if not. */
static int decode(struct mt_kimg *k, const struct mt_kfunc *f, struct cinsn **out)
{
	const uint8_t *code = f->size ? mt_kimg_bytes(k, f->addr, f->size) : NULL;
	struct cinsn *v = calloc(SDT_MAXINSNS, sizeof *v);
	uint64_t a = f->addr;
	size_t left = f->size;
	cs_insn *in = NULL;
	csh cs;
	int n = 0, ends;

	if (!code || !v || x86_open(&cs) < 0) {
		free(v);
		return -1;
	}
	in = cs_malloc(cs);
	while (in && left && n < SDT_MAXINSNS && cs_disasm_iter(cs, &code, &left, &a, in)) {
		struct cinsn *c = &v[n++];
		int call = x86_in_group(in, CS_GRP_CALL);
		uint64_t callee = call ? x86_branch_target(in) : 0;
		const struct mt_kfunc *cf = callee ? mt_kimg_func_at(k, callee) : NULL;
		c->addr = in->address;
		c->end = in->address + in->size;
		c->target = call ? 0 : x86_branch_target(in);
		c->jmp = in->id == X86_INS_JMP;
		c->leaves = !call && x86_is_branch(in) && !c->target &&
			    (c->jmp || x86_in_group(in, CS_GRP_RET) || x86_in_group(in, CS_GRP_IRET) ||
			     x86_in_group(in, CS_GRP_INT));
		c->nofall = c->jmp || c->leaves || (cf && cf->addr == callee && cf->noreturn);
		c->dead = in->id == X86_INS_NOP;	/* for now: a nop (mark_padding) */
		/* as sites_insn_offsets: what cannot run out of line is no site */
		c->ok = reloc_insn(in, LIVE_TRAMP_VA,
				   NULL, &ends) >= 0;
	}
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	*out = v;
	return n;
}

static int in_ranges(uint64_t a, const uint64_t *lo, const uint64_t *hi, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (a >= lo[i] && a < hi[i])
			return 1;
	return 0;
}

/* The index of v's instruction starting at a (v is in address order), or -1. */
static int insn_index(const struct cinsn *v, int n, uint64_t a)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (v[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].addr == a ? lo : -1;
}

static const struct cinsn *insn_at(const struct cinsn *v, int n, uint64_t a)
{
	int i = insn_index(v, n, a);

	return i < 0 ? NULL : &v[i];
}

/* The nops (dead set by decode) after a nofall instruction that no jump
   targets are padding that never runs; other nops run. */
static void mark_padding(struct cinsn *v, int n)
{
	uint8_t *targeted = calloc((size_t)n + 1, 1);

	for (int i = 0; targeted && i < n; i++) {
		int t = v[i].target ? insn_index(v, n, v[i].target) : -1;
		if (t >= 0)
			targeted[t] = 1;
	}
	for (int i = 0; i < n; i++)
		v[i].dead = targeted && v[i].dead && !targeted[i] && i > 0 &&
			    (v[i - 1].nofall || v[i - 1].dead);
	free(targeted);
}

/* The successors of v[i] in the caller's code (-1: none or unknown). */
static void successors(const struct cinsn *v, int n, int i, int succ[2])
{
	succ[0] = v[i].nofall || v[i].dead ? -1 : insn_index(v, n, v[i].end);
	succ[1] = v[i].target && !v[i].dead ? insn_index(v, n, v[i].target) : -1;
}

#define RUN_ENTERED	1	/* reached from the copy's entry */
#define RUN_JOINED	2	/* reached from code joining the copy elsewhere */

/* Mark `bit` in run[] on what v[start] reaches without leaving the ranges. */
static void flood(const struct cinsn *v, int n, int *stack, int start, uint8_t bit,
		  uint8_t *run, const uint64_t *lo, const uint64_t *hi, size_t nr)
{
	int top = 0, succ[2];

	run[start] |= bit;
	stack[top++] = start;
	while (top) {
		successors(v, n, stack[--top], succ);
		for (int k = 0; k < 2; k++)
			if (succ[k] >= 0 && !(run[succ[k]] & bit) &&
			    in_ranges(v[succ[k]].addr, lo, hi, nr)) {
				run[succ[k]] |= bit;
				stack[top++] = succ[k];
			}
	}
}

/*
 * run[i]: RUN_ENTERED if instruction i runs in the copy after its entry,
 * reached from the entry pc without leaving the copy's ranges.  The rest
 * of the ranges (blocks GCC shares with the caller, the copy's code
 * scheduled before its entry) runs on paths that never entered the copy:
 * its exits are none of the copy's.  RUN_JOINED if code that is not the
 * copy's jumps or falls into the entered part other than at the entry
 * (GCC merged the copy's tail with other code): exits such paths reach
 * would count returns without an entry.  LOC_JOINED if any, or if the
 * copy jumps back to its entry (an entry without a return).
 */
static int reach(const struct cinsn *v, int n, uint64_t entry, const uint64_t *lo,
		 const uint64_t *hi, size_t nr, uint8_t *run)
{
	int *stack = malloc(((size_t)n + 1) * sizeof *stack), e = insn_index(v, n, entry);
	int flags = 0, succ[2];

	if (!stack || e < 0) {
		free(stack);
		return -1;
	}
	memset(run, 0, (size_t)n);
	flood(v, n, stack, e, RUN_ENTERED, run, lo, hi, nr);
	for (int i = 0; i < n; i++) {
		successors(v, n, i, succ);
		for (int k = 0; k < 2; k++) {
			int j = succ[k];
			if (j == e && (run[i] & RUN_ENTERED))
				flags |= LOC_JOINED;	/* a loop back to the entry */
			if (j < 0 || !(run[j] & RUN_ENTERED) || j == e || (run[i] & RUN_ENTERED))
				continue;
			flags |= LOC_JOINED;
			if (!(run[j] & RUN_JOINED))
				flood(v, n, stack, j, RUN_JOINED, run, lo, hi, nr);
		}
	}
	free(stack);
	return flags;
}

static void add_exit(struct copy *c, uint64_t a, uint8_t flags)
{
	for (int i = 0; i < c->nexits; i++)
		if (c->exit[i] == a)
			return;
	if (c->nexits == COPY_MAXEXITS) {
		c->leaves |= LOC_LEAVES;
		return;
	}
	c->exitflags[c->nexits] = flags;
	c->exit[c->nexits++] = a;
}

/*
 * Where control may arrive at t outside the copy: a site there counts
 * each arrival, exact only when every way into t comes from the copy
 * (no jump from elsewhere, no fall-through from the caller's code).
 */
static int shared(const struct cinsn *v, int n, uint64_t t, const uint8_t *run)
{
	for (int i = 0; i < n; i++)
		if (run[i] != RUN_ENTERED && !v[i].dead && (v[i].target == t ||
		    (v[i].end == t && !v[i].nofall)))
			return 1;
	return 0;
}

static void add_target(struct copy *c, const struct cinsn *v, int n, uint64_t t,
		       const uint8_t *run)
{
	const struct cinsn *at = insn_at(v, n, t);

	if (!at || !at->ok) {
		c->leaves |= LOC_LEAVES;
		return;
	}
	add_exit(c, t, shared(v, n, t, run) ? LOC_SHARED : 0);
}

/*
 * The copy's last instruction when the code after jcc v[i] runs straight
 * (no branch, nothing else jumping into it) to one that falls out of the
 * copy; -1 if not.  Then the jcc leaves the copy either way, and is the
 * exact site where its target is shared (the return fires before that
 * straight run).
 */
static int straight_end(const struct cinsn *v, int n, int i, const uint64_t *lo,
			const uint64_t *hi, size_t nr, const uint8_t *run)
{
	for (int y = i + 1; y < n && run[y] == RUN_ENTERED && !v[y].target && !v[y].nofall &&
	     v[y].addr == v[y - 1].end; y++) {
		for (int j = 0; j < n; j++)
			if (v[j].target == v[y].addr)
				return -1;
		if (!in_ranges(v[y].end, lo, hi, nr))
			return y;
	}
	return -1;
}

/*
 * c's exits, from the code run after its entry: an instruction of
 * the copy that always leaves it (a jmp out, a ret, the last instruction
 * before the caller's code, a jcc both of whose ways leave, at once or
 * after a straight run, straight_end) is its own exit site; where a jcc
 * may leave or stay, the site is where it leaves to.
 */
static int in_list(const uint64_t *v, int n, uint64_t a)
{
	for (int i = 0; i < n; i++)
		if (v[i] == a)
			return 1;
	return 0;
}

/* Pass 0 lists where jccs leave to (dest), pass 1 places the sites: an
   instruction that always leaves to a dest is counted there. */
static void find_exits(struct copy *c, const struct cinsn *v, int n, const uint64_t *lo,
		       const uint64_t *hi, size_t nr, const uint8_t *run)
{
	uint64_t dest[2 * COPY_MAXEXITS];
	int skip[COPY_MAXEXITS], nskip = 0, ndest = 0, y;

	for (int pass = 0; pass < 2; pass++, nskip = 0)
	for (int i = 0; i < n; i++) {
		const struct cinsn *x = &v[i];
		int out_target = x->target && !in_ranges(x->target, lo, hi, nr);
		int falls_out = !x->nofall && !in_ranges(x->end, lo, hi, nr);
		uint64_t to = x->jmp && out_target ? x->target : falls_out && !x->target ? x->end : 0;
		int skipped = 0;
		for (int k = 0; k < nskip; k++)
			skipped |= skip[k] == i;
		if (run[i] != RUN_ENTERED || skipped)
			continue;
		if (out_target && !falls_out && !x->jmp && x->ok && nskip < COPY_MAXEXITS &&
		    shared(v, n, x->target, run) &&
		    (y = straight_end(v, n, i, lo, hi, nr, run)) >= 0) {
			if (pass)
				add_exit(c, x->addr, 0);
			skip[nskip++] = y;
			continue;
		}
		if (x->leaves || (x->jmp && out_target) || (falls_out && (!x->target || out_target))) {
			if (!pass || (to && in_list(dest, ndest, to)))
				continue;
			if (x->ok)
				add_exit(c, x->addr, 0);
			else
				c->leaves |= LOC_LEAVES;
			continue;
		}
		if (!pass) {
			if (out_target && ndest < 2 * COPY_MAXEXITS)
				dest[ndest++] = x->target;
			if (falls_out && ndest < 2 * COPY_MAXEXITS)
				dest[ndest++] = x->end;
			continue;
		}
		if (out_target)
			add_target(c, v, n, x->target, run);
		if (falls_out)
			add_target(c, v, n, x->end, run);
	}
}

/* The sites of inlined copy `in`. */
static void copy_sites(struct mt_kimg *k, const struct mt_kinline *in, struct copy *c)
{
	uint64_t lo[COPY_MAXRANGES], hi[COPY_MAXRANGES];
	size_t nr = mt_kimg_inline_ranges(k, in, lo, hi, COPY_MAXRANGES);
	struct cinsn *v = NULL;
	uint8_t *run = NULL;
	int n, joined;

	memset(c, 0, sizeof *c);
	c->caller = mt_kimg_func_at(k, in->entry);
	if (!c->caller || c->caller->inline_only) {
		c->why = "its code is in no kernel function";
		return;
	}
	if (c->caller->patch == MT_PATCH_REFUSED) {
		c->why = c->caller->why ? c->caller->why : "its caller cannot be patched";
		return;
	}
	if ((n = decode(k, c->caller, &v)) < 0) {
		c->why = "its caller's code cannot be decoded";
		return;
	}
	mark_padding(v, n);
	if (!nr) {
		lo[0] = in->low;
		hi[0] = in->high;
		nr = in->high > in->low;
	}
	if (insn_at(v, n, in->entry) && in->entry != c->caller->addr)
		c->entry = in->entry;
	else
		c->why = in->entry == c->caller->addr ? "it starts its caller (fbt's entry site)" :
			 "its entry pc starts no instruction";
	run = c->entry ? malloc((size_t)n + 1) : NULL;
	if (run && (joined = reach(v, n, c->entry, lo, hi, nr, run)) >= 0) {
		c->leaves |= joined;
		find_exits(c, v, n, lo, hi, nr, run);
	} else if (c->entry) {
		c->entry = 0;
		c->why = "out of memory";
	}
	free(run);
	free(v);
}

static int add_loc(struct lprobe *p, uint64_t addr, const struct mt_kfunc *f, uint8_t where)
{
	struct sdt_loc *v;

	for (uint32_t i = 0; i < p->nlocs; i++)
		if (p->locs[i].addr == addr && p->locs[i].where == where)
			return 0;
	if (!(v = realloc(p->locs, (p->nlocs + 1) * sizeof *v)))
		return -1;
	p->locs = v;
	v[p->nlocs++] = (struct sdt_loc){ .addr = addr, .f = f, .where = where };
	return 0;
}

/* The out-of-line copy's fbt site of probe p. */
static int add_outofline(struct lprobe *p, const struct mt_kfunc *f, int ret)
{
	if (f->inline_only || f->patch == MT_PATCH_REFUSED || (ret && !f->nrets))
		return 0;
	return add_loc(p, f->addr, f, ret ? SDT_RETURN : SDT_ENTRY);
}

/* A parameter's operand as the blob reads it (0 where it has none). */
static struct lk_uarg uarg_of(const struct dwloc_operand *o)
{
	struct lk_uarg u = { .size = (int8_t)o->size, .kind = LK_UA_IMM, .reg = LK_UA_NOREG,
			     .idx = LK_UA_NOREG };

	if (o->kind == DWOP_REG || o->kind == DWOP_MEM) {
		u.kind = o->kind == DWOP_REG ? LK_UA_REG : LK_UA_MEM;
		u.reg = (uint8_t)o->reg;
	}
	u.val = o->kind == DWOP_NONE ? 0 : o->val;
	return u;
}

/* Copy `in`'s parameters at its entry pc; how many f has (at most max). */
static int copy_args(struct mt_kimg *k, const struct mt_kfunc *f, const struct mt_kinline *in,
		     struct dwloc_operand *o, int max)
{
	const char *names[MT_KFUNC_MAXARGS];
	int n = f->nargs < max ? f->nargs : max;

	for (int i = 0; i < n; i++)
		names[i] = f->args[i].name;
	if (n <= 0 || mt_kimg_inline_args(k, in, in->entry, names, n, o) < 0)
		return 0;
	return n;
}

/*
 * args[] of kinst::FUNC:entry: each copy's parameters where DWARF puts
 * them at its entry pc, read by the blob (LK_SF_UARGS); args[i] exists
 * when every copy has parameters 0..i there (p->inl_nargs).
 */
static int entry_args(struct live *l, struct lprobe *p, const struct mt_kfunc *f,
		      const struct mt_kinline *in, size_t nin)
{
	struct dwloc_operand o[LK_UARGS_MAX];
	int avail = f->nargs < LK_UARGS_MAX ? f->nargs : LK_UARGS_MAX;

	if (avail <= 0 || f->varargs || !(p->uargv = calloc((size_t)p->nlocs * LK_UARGS_MAX,
							      sizeof *p->uargv)))
		return avail > 0 && !f->varargs ? -1 : 0;
	for (uint32_t k = 0; k < p->nlocs; k++) {
		struct sdt_loc *lo = &p->locs[k];
		size_t j = 0;
		int n;
		if (lo->where != SDT_INLINE_ENTRY)
			continue;
		while (j < nin && in[j].entry != lo->addr)
			j++;
		n = j < nin ? copy_args(l->k, f, &in[j], o, LK_UARGS_MAX) : 0;
		for (int i = 0; i < n; i++)
			p->uargv[k * LK_UARGS_MAX + i] = uarg_of(&o[i]);
		for (int i = 0; i < avail; i++)
			if (i >= n || o[i].kind == DWOP_NONE)
				avail = i;
		lo->uargs = &p->uargv[k * LK_UARGS_MAX];
		lo->nuargs = (uint8_t)n;
	}
	p->inl_nargs = avail;
	return 0;
}

char *kinline_arg_missing(struct live *l, const struct lprobe *p, int i)
{
	const struct mt_kinline *in;
	size_t nin = mt_kimg_inlines(l->k, p->f->name, &in);
	struct dwloc_operand o[LK_UARGS_MAX];
	uint32_t ncopies = 0, nmiss = 0;
	const struct sdt_loc *miss = NULL;
	char *s = NULL;

	if (i < 0 || i >= p->f->nargs || p->f->varargs)
		return NULL;
	if (i >= LK_UARGS_MAX)
		return asprintf(&s, "args[%d] of kinst::%s:entry: the blob reads at most %d "
				"arguments of an inlined copy", i, p->f->name, LK_UARGS_MAX) < 0 ?
			NULL : s;
	for (uint32_t k = 0; k < p->nlocs; k++) {
		const struct sdt_loc *lo = &p->locs[k];
		size_t j = 0;
		if (lo->where != SDT_INLINE_ENTRY)
			continue;
		while (j < nin && in[j].entry != lo->addr)
			j++;
		ncopies++;
		if (j == nin || copy_args(l->k, p->f, &in[j], o, LK_UARGS_MAX) <= i ||
		    o[i].kind == DWOP_NONE) {
			nmiss++;
			miss = miss ? miss : lo;
		}
	}
	if (!miss || asprintf(&s, "args[%d] (%s) of kinst::%s:entry is optimized out at "
			      "%s+0x%llx (%u of its %u inlined copies): locals->%s reads it "
			      "at each copy's kinst::CALLER:OFFSET where it has a location",
			      i, p->f->args[i].name, p->f->name, miss->f->name,
			      (unsigned long long)(miss->addr - miss->f->addr), nmiss, ncopies,
			      p->f->args[i].name) < 0)
		return NULL;
	return s;
}

int kinline_sites(struct live *l, struct lprobe *p, const struct mt_kfunc *f, int ret)
{
	const struct mt_kinline *in;
	size_t n = mt_kimg_inlines(l->k, f->name, &in);

	if (add_outofline(p, f, ret) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct copy c;
		copy_sites(l->k, &in[i], &c);
		if (!c.entry)
			continue;
		if (!ret && add_loc(p, c.entry, c.caller, SDT_INLINE_ENTRY) < 0)
			return -1;
		for (int e = 0; ret && e < c.nexits; e++)
			if (add_loc(p, c.exit[e], c.caller, SDT_INLINE_EXIT) < 0)
				return -1;
	}
	return ret ? 0 : entry_args(l, p, f, in, n);
}

/* -lv: each inlined copy of p's function, its sites and what is inexact. */
void kinline_print_sites(const struct live *l, const struct lprobe *p, FILE *out)
{
	const struct mt_kinline *in;
	size_t n = mt_kimg_inlines(l->k, p->f->name, &in);
	int ret = strcmp(p->name, "return") == 0;

	fprintf(out, "\tProbe Sites (%u: %zu inlined copies%s)\n", p->nlocs, n,
		p->f->inline_only ? "" : ", and the out-of-line copy's fbt site");
	for (size_t i = 0; i < n; i++) {
		struct copy c;
		copy_sites(l->k, &in[i], &c);
		if (!c.entry) {
			fprintf(out, "\t\tcopy at %#llx in %s: not traced: %s\n",
				(unsigned long long)in[i].entry, in[i].caller, c.why);
			continue;
		}
		if (!ret) {
			fprintf(out, "\t\t%s+%#llx: entry of an inlined copy\n", c.caller->name,
				(unsigned long long)(c.entry - c.caller->addr));
			continue;
		}
		for (int e = 0; e < c.nexits; e++)
			fprintf(out, "\t\t%s+%#llx: exit of the copy at +%#llx%s\n", c.caller->name,
				(unsigned long long)(c.exit[e] - c.caller->addr),
				(unsigned long long)(c.entry - c.caller->addr),
				c.exitflags[e] & LOC_SHARED ? " (inexact: other code comes here too)" : "");
		if ((c.leaves & LOC_LEAVES) || !c.nexits)
			fprintf(out, "\t\t%s+%#llx: inexact: the copy also leaves its code "
				"where no site can go (not counted there)\n", c.caller->name,
				(unsigned long long)(c.entry - c.caller->addr));
		if (c.leaves & LOC_JOINED)
			fprintf(out, "\t\t%s+%#llx: inexact: other code joins the copy's "
				"code after its entry (exits it reaches are not counted)\n",
				c.caller->name, (unsigned long long)(c.entry - c.caller->addr));
	}
	fprintf(out, "\n");
}

/* -d: p's sites as D probe descriptions (kinst::CALLER:OFFSET, fbt's
   for the out-of-line copy), comma-separated; malloc'd, NULL if none. */
char *kinline_expand(const struct lprobe *p)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (uint32_t i = 0; i < p->nlocs; i++) {
		const struct sdt_loc *lo = &p->locs[i];
		if (lo->where == SDT_ENTRY || lo->where == SDT_RETURN)
			fprintf(f, "%sfbt::%s:%s", i ? ",\n" : "", lo->f->name,
				lo->where == SDT_ENTRY ? "entry" : "return");
		else
			fprintf(f, "%skinst::%s:%llu", i ? ",\n" : "", lo->f->name,
				(unsigned long long)(lo->addr - lo->f->addr));
	}
	if (fclose(f) != 0 || !p->nlocs) {
		free(s);
		return NULL;
	}
	return s;
}
