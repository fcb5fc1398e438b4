/*
 * The SDT providers' common part (sdt.h): resolving each probe's sites in
 * the kernel's text when the target is created (a probe none of whose
 * sites exists in this kernel is not listed), and its arguments' types
 * and mapping for the compiler, -lv and the image.
 */
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/live_int.h"

static const struct sdt_provider *const sdt_providers[] = {
	&sdt_sched,
	&sdt_ipc,
	&sdt_proc,
	&sdt_vm,
	&sdt_vminfo,
};
#define NSDT (sizeof sdt_providers / sizeof *sdt_providers)
/* instructions of a function decoded for its sites (mach_msg_trap: ~1700) */
#define SDT_MAXINSNS	8192

/*
 * Offsets in f of each direct call to callee (SDT_CALL) or of the
 * instruction after it (SDT_AFTER_CALL), at most max; -1 if f cannot be
 * decoded.  Only instructions an int3 site can take (relocatable out of
 * line) count.
 */
static int call_offsets(struct mt_kimg *k, const struct mt_kfunc *f, uint64_t callee,
			int where, uint32_t *offs, int max)
{
	uint32_t all[SDT_MAXINSNS];
	int n = sites_insn_offsets(k, f, all, SDT_MAXINSNS), m = 0;
	const uint8_t *code;
	cs_insn *in;
	csh cs;

	if (n < 0 || x86_open(&cs) < 0)
		return -1;
	in = cs_malloc(cs);
	for (int i = 0; in && i < n && m < max; i++) {
		uint64_t a = f->addr + all[i];
		size_t left = f->size - all[i];
		code = mt_kimg_bytes(k, a, left);
		if (!code || !cs_disasm_iter(cs, &code, &left, &a, in) ||
		    !x86_in_group(in, CS_GRP_CALL) || x86_branch_target(in) != callee)
			continue;
		if (where == SDT_CALL)
			offs[m++] = all[i];
		else if (i + 1 < n && all[i + 1] == all[i] + in->size)
			offs[m++] = all[i + 1];
	}
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	return m;
}

/* SDT_LINE: the line's first instruction in f, if an int3 can take it. */
static int line_offset(struct mt_kimg *k, const struct mt_kfunc *f, uint32_t line,
		       uint32_t *off)
{
	uint32_t all[SDT_MAXINSNS];
	int n = sites_insn_offsets(k, f, all, SDT_MAXINSNS);
	uint64_t a = mt_kimg_line_addr(k, f->addr, f->addr + f->size, (int)line);

	for (int i = 0; a && i < n; i++)
		if (f->addr + all[i] == a) {
			*off = all[i];
			return 1;
		}
	return 0;
}

/* DWARF number of register "%name", -1 if none. */
static int reg_by_name(const char *v)
{
	static const char *const names[16] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};

	for (int i = 0; i < 16; i++)
		if (strcmp(v + 1, names[i]) == 0)
			return i;
	return -1;
}

/* The registers of a site's named variables (sdt_site.vars); 0, or -1
   when one is not in a register at addr. */
static int site_regs(struct mt_kimg *k, const struct sdt_site *s, uint64_t addr,
		     struct sdt_loc *lo)
{
	lo->regargs = s->vars[0] != NULL;
	for (int i = 0; i < SDT_MAXVARS; i++) {
		const char *v = lo->regargs ? s->vars[i] : NULL;
		int r = !v ? LK_REG_ZERO : strcmp(v, "$curthread") == 0 ? LK_REG_CURTHREAD :
			v[0] == '%' ? reg_by_name(v) : mt_kimg_var_reg(k, addr, v);
		if (r < 0)
			return -1;
		lo->argreg[i] = (uint8_t)r;
	}
	return 0;
}

/*
 * The address of a counter ("global" or "global.member", a member of a
 * global struct, from DWARF); 0 if this kernel has none.
 */
static uint64_t counter_addr(struct mt_kimg *k, const char *name)
{
	char g[64], type[256], sname[256], mtype[256];
	const char *dot = strchr(name, '.');
	uint64_t addr, off;
	size_t n = dot ? (size_t)(dot - name) : strlen(name);

	if (n >= sizeof g)
		return 0;
	memcpy(g, name, n);
	g[n] = 0;
	if (mt_kimg_symbol(k, g, &addr) != 0 || !addr)
		return 0;
	if (!dot)
		return addr;
	if (live_var_type(k, g, type, sizeof type) != 0 ||
	    live_struct_of(k, type, sname, sizeof sname) != 0)
		return 0;
	if (mt_kimg_member(k, sname, dot + 1, &off, mtype, sizeof mtype) != 0)
		return 0;
	return addr + off;
}

/* in adds a constant to the memory at caddr (add $imm / inc with a
   rip-relative operand); the constant, 0 if it does not. */
static int32_t counter_inc(const cs_insn *in, uint64_t caddr)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *m = &x->operands[0];

	if (in->id != X86_INS_ADD && in->id != X86_INS_INC)
		return 0;
	if (x->op_count < 1 || m->type != X86_OP_MEM || m->mem.base != X86_REG_RIP ||
	    m->mem.index != X86_REG_INVALID ||
	    in->address + in->size + (uint64_t)m->mem.disp != caddr)
		return 0;
	if (in->id == X86_INS_INC)
		return 1;
	if (x->op_count != 2 || x->operands[1].type != X86_OP_IMM)
		return 0;
	return (int32_t)x->operands[1].imm;
}

/* f's bytes hold a rip-relative displacement that may reach caddr (a
   cheap test before decoding f: the operand's disp32 is followed by
   0, 1 or 4 immediate bytes). */
static int may_count(struct mt_kimg *k, const struct mt_kfunc *f, uint64_t caddr)
{
	const uint8_t *b = f->size >= 6 ? mt_kimg_bytes(k, f->addr, f->size) : NULL;

	for (uint64_t j = 2; b && j + 4 <= f->size; j++) {
		int32_t d = (int32_t)((uint32_t)b[j] | (uint32_t)b[j + 1] << 8 |
				      (uint32_t)b[j + 2] << 16 | (uint32_t)b[j + 3] << 24);
		uint64_t next = f->addr + j + 4, gap = caddr - (next + (uint64_t)(int64_t)d);
		if (gap == 0 || gap == 1 || gap == 4)
			return 1;
	}
	return 0;
}

/* Append the increments of the counter at caddr in f to p's locations
   (instructions an int3 can take only); -1 out of memory. */
static int counter_sites(struct live *l, struct lprobe *p, const struct mt_kfunc *f,
			 uint64_t caddr)
{
	const uint8_t *code = f->size ? mt_kimg_bytes(l->k, f->addr, f->size) : NULL;
	uint64_t a = f->addr;
	size_t left = f->size;
	cs_insn *in;
	csh cs;
	int rc = 0, ends;

	if (!code || f->inline_only || f->patch == MT_PATCH_REFUSED || !may_count(l->k, f, caddr))
		return 0;
	if (x86_open(&cs) < 0)
		return 0;
	in = cs_malloc(cs);
	while (in && rc == 0 && left && cs_disasm_iter(cs, &code, &left, &a, in)) {
		int32_t inc = counter_inc(in, caddr);
		struct sdt_loc *v;
		if (!inc || reloc_insn(in, LK_KERNEL_MAP_BASE + LK_RESV_PA + LK_TRAMP_OFF,
				       NULL, &ends) < 0)
			continue;
		if (!(v = realloc(p->locs, (p->nlocs + 1) * sizeof *v))) {
			rc = -1;
			break;
		}
		p->locs = v;
		p->locs[p->nlocs++] = (struct sdt_loc){ .addr = in->address, .f = f, .where = SDT_COUNTER,
							 .inc = inc, .counter = caddr };
	}
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	return rc;
}

/* An SDT_COUNTER site: in its function, or anywhere in the text. */
static int resolve_counter(struct live *l, struct lprobe *p, const struct sdt_site *s)
{
	uint64_t caddr = counter_addr(l->k, s->callee);
	size_t n = mt_kimg_nfuncs(l->k);

	if (!caddr)
		return 0;
	if (s->func) {
		const struct mt_kfunc *f = mt_kimg_lookup(l->k, s->func);
		return f ? counter_sites(l, p, f, caddr) : 0;
	}
	for (size_t i = 0; i < n; i++)
		if (counter_sites(l, p, mt_kimg_func(l->k, i), caddr) < 0)
			return -1;
	return 0;
}

/*
 * The trap handlers are refused to fbt (the path of traps that are not
 * ours: KDB's breakpoints).  A call site inside them is only reached by
 * the trap it handles, never by an int3 of ours (the blob owns vector 3):
 * vm:::fault takes the page fault's call of vm_fault there.
 */
static int insn_site_ok(const struct mt_kfunc *f, const struct sdt_site *s)
{
	return (s->where == SDT_CALL || s->where == SDT_AFTER_CALL) && f->size &&
	       (strcmp(f->name, "user_trap") == 0 || strcmp(f->name, "kernel_trap") == 0);
}

/* Append the locations of site s to p's; -1 out of memory. */
static int resolve_site(struct live *l, struct lprobe *p, const struct sdt_site *s)
{
	const struct mt_kfunc *f, *c = NULL;
	uint32_t offs[16];
	int n = 1;
	struct sdt_loc *v;

	if (s->where == SDT_COUNTER)
		return resolve_counter(l, p, s);
	f = mt_kimg_lookup(l->k, s->func);
	if (!f || f->inline_only || (f->patch == MT_PATCH_REFUSED && !insn_site_ok(f, s)))
		return 0;
	if (s->where == SDT_RETURN && !f->nrets)
		return 0;
	offs[0] = 0;
	if (s->where == SDT_CALL || s->where == SDT_AFTER_CALL) {
		c = mt_kimg_lookup(l->k, s->callee);
		n = c ? call_offsets(l->k, f, c->addr, s->where, offs, 16) : 0;
		if (n <= 0)
			return 0;
	} else if (s->where == SDT_LINE && !line_offset(l->k, f, s->line, &offs[0]))
		return 0;
	v = realloc(p->locs, (p->nlocs + (uint32_t)n) * sizeof *v);
	if (!v)
		return -1;
	p->locs = v;
	for (int i = 0; i < n; i++) {
		struct sdt_loc lo = { .addr = f->addr + offs[i], .f = f, .where = s->where };
		if (s->where != SDT_ENTRY && s->where != SDT_RETURN &&
		    site_regs(l->k, s, lo.addr, &lo) < 0)
			continue;
		p->locs[p->nlocs++] = lo;
	}
	return 0;
}

/*
 * A probe without a func (its sites anywhere in the text, e.g. a
 * counter's increments): one probe per function holding sites, as
 * DTrace names a probe by the function it fires in.
 */
static int sdt_add_split(struct live *l, const char *prov, const struct sdt_probe *sp)
{
	struct lprobe all = { 0 };
	int rc = 0;

	for (int i = 0; i < SDT_MAXSITES && sp->sites[i].where; i++)
		if (resolve_site(l, &all, &sp->sites[i]) < 0)
			rc = -1;
	for (uint32_t i = 0; rc == 0 && i < all.nlocs; i++) {
		const struct mt_kfunc *f = all.locs[i].f;
		struct lprobe *p;
		int seen = 0;
		for (uint32_t j = 0; j < i && !seen; j++)
			seen = all.locs[j].f == f;
		if (seen)
			continue;
		if (!(p = live_probe_add(l, prov, f->name, sp->name, MT_PK_OTHER, 0, NULL))) {
			rc = -1;
			break;
		}
		p->sdt = sp;
		p->f = f;
		for (uint32_t j = i; j < all.nlocs; j++) {
			struct sdt_loc *v;
			if (all.locs[j].f != f)
				continue;
			if (!(v = realloc(p->locs, (p->nlocs + 1) * sizeof *v))) {
				rc = -1;
				break;
			}
			p->locs = v;
			p->locs[p->nlocs++] = all.locs[j];
		}
	}
	free(all.locs);
	return rc;
}

static int sdt_add(struct live *l, const char *prov, const struct sdt_probe *sp)
{
	struct lprobe *p;

	if (!sp->func)
		return sdt_add_split(l, prov, sp);
	if (!(p = live_probe_add(l, prov, sp->func, sp->name, MT_PK_OTHER, 0, NULL)))
		return -1;
	p->sdt = sp;
	for (int i = 0; i < SDT_MAXSITES && sp->sites[i].where; i++)
		if (resolve_site(l, p, &sp->sites[i]) < 0)
			return -1;
	if (!p->nlocs) {	/* not in this kernel: not a probe */
		free(p->locs);	/* sites found, none usable */
		p->locs = NULL;
		l->nprobes--;
		l->next_id--;
		return 0;
	}
	p->f = p->locs[0].f;
	return 0;
}

static int sdt_populate(struct live *l)
{
	for (size_t i = 0; i < NSDT; i++)
		for (uint32_t k = 0; k < sdt_providers[i]->nprobes; k++)
			if (sdt_add(l, sdt_providers[i]->name, &sdt_providers[i]->probes[k]) < 0)
				return -1;
	return 0;
}

const struct live_provider live_prov_sdt = {
	.name = "sdt",
	.populate = sdt_populate,
};

static const struct sdt_provider *provider_named(const char *prov)
{
	for (size_t i = 0; i < NSDT; i++)
		if (strcmp(prov, sdt_providers[i]->name) == 0)
			return sdt_providers[i];
	return NULL;
}

/*
 * The probes whose sites stamp for p's MT_ARGMAP_ELAPSED arguments (its
 * provider's `stamp` probes), at most max in out; how many.  None when
 * p has no such argument.
 */
int sdt_stampers(const struct live *l, const struct lprobe *p, const struct lprobe **out,
		 int max)
{
	const struct sdt_provider *pv = p->sdt ? provider_named(p->prov) : NULL;
	int n = 0, elapsed = 0;

	for (int i = 0; pv && i < SDT_MAXARGS && p->sdt->args[i].native; i++)
		elapsed |= p->sdt->args[i].raw == MT_ARGMAP_ELAPSED;
	if (!elapsed || !pv->stamp)
		return 0;
	for (uint32_t k = 0; k < l->nprobes && n < max; k++)
		if (l->probes[k].sdt && strcmp(l->probes[k].prov, pv->name) == 0 &&
		    strcmp(l->probes[k].name, pv->stamp) == 0)
			out[n++] = &l->probes[k];
	return n;
}

int sdt_is_provider(const char *prov)
{
	for (size_t i = 0; i < NSDT; i++)
		if (live_fmatch(prov, sdt_providers[i]->name))
			return 1;
	return 0;
}

static int sdt_nargs_of(const struct sdt_probe *sp)
{
	int n = 0;

	while (n < SDT_MAXARGS && sp->args[n].native)
		n++;
	return n;
}

/* The argument mapping a firing of p applies (struct mt_probe): a probe
   without arguments maps none, so that no raw register shows through. */
void sdt_argmap(const struct lprobe *p, uint8_t *nmap, uint8_t *argmap)
{
	int n = sdt_nargs_of(p->sdt);

	*nmap = n ? (uint8_t)n : 1;
	argmap[0] = MT_ARGMAP_ZERO;
	for (int i = 0; i < n; i++)
		argmap[i] = p->sdt->args[i].raw;
}

/*
 * Every SDT probe matching (prov, func, name) must agree on what `pick`
 * gives for args[i]; the agreed value, or NULL.  *matched counts them.
 */
const char *sdt_argtype(const struct live *l, const char *prov, const char *func,
			const char *name, int i, int native, int *matched)
{
	const char *v = NULL;

	*matched = 0;
	for (uint32_t k = 0; k < l->nprobes; k++) {
		const struct lprobe *p = &l->probes[k];
		const struct sdt_arg *a;
		const char *t;
		if (!p->sdt || !live_fmatch(prov, p->prov) || !live_fmatch(func, p->func) ||
		    !live_fmatch(name, p->name))
			continue;
		(*matched)++;
		if (i >= sdt_nargs_of(p->sdt))
			return NULL;
		a = &p->sdt->args[i];
		t = native ? (a->xlate ? a->native : NULL) : (a->xlate ? a->xlate : a->native);
		if (!t || (v && strcmp(v, t) != 0))
			return NULL;
		v = t;
	}
	return v;
}


/* How many args[] every matching SDT probe has, -1 if they differ or none. */
int sdt_nargs(const struct live *l, const char *prov, const char *func, const char *name)
{
	int n = -1;

	for (uint32_t k = 0; k < l->nprobes; k++) {
		const struct lprobe *p = &l->probes[k];
		if (!p->sdt || !live_fmatch(prov, p->prov) || !live_fmatch(func, p->func) ||
		    !live_fmatch(name, p->name))
			continue;
		if (n >= 0 && n != sdt_nargs_of(p->sdt))
			return -1;
		n = sdt_nargs_of(p->sdt);
	}
	return n;
}
