/*
 * The SDT providers' common part (sdt.h): resolving each probe's sites in
 * the kernel's text when the target is created (a probe none of whose
 * sites exists in this kernel is not listed), and its arguments' types
 * and mapping for the compiler, -lv and the image.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/live_int.h"

static const struct sdt_provider *const sdt_providers[] = {
	&sdt_sched,
	&sdt_ipc,
	&sdt_proc,
	&sdt_vm,
	&sdt_vminfo,
	&sdt_lockstat,
};
#define NSDT (sizeof sdt_providers / sizeof *sdt_providers)

/* The offset of member "struct.member" (a path), -1 if none. */
static int64_t member_offset(struct mt_kimg *k, const char *name)
{
	char sname[64], type[256];
	const char *dot = strchr(name, '.');
	uint64_t off;

	if (!dot || (size_t)(dot - name) >= sizeof sname)
		return -1;
	memcpy(sname, name, (size_t)(dot - name));
	sname[dot - name] = 0;
	return mt_kimg_member(k, sname, dot + 1, &off, type, sizeof type) == 0 ? (int64_t)off : -1;
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

/* The flow a variable's fallback names ("*", "FUNC", "FUNC:N",
   "&struct.member": sdt.h); -1 if this kernel has no such thing. */
static int flow_of(struct mt_kimg *k, const char *fb, struct sdt_flow *g)
{
	char fn[64];
	const struct mt_kfunc *c;
	const char *colon = strchr(fb, ':');
	int64_t off;

	memset(g, 0, sizeof *g);
	if (strcmp(fb, "*") == 0) {
		g->kind = SDT_FLOW_STORED;
		return 0;
	}
	if (fb[0] == '&') {
		if ((off = member_offset(k, fb + 1)) < 0)
			return -1;
		g->kind = SDT_FLOW_BASE;
		g->target = (uint64_t)off;
		return 0;
	}
	snprintf(fn, sizeof fn, "%.*s", colon ? (int)(colon - fb) : 63, fb);
	if (!(c = mt_kimg_lookup(k, fn)))
		return -1;
	g->kind = SDT_FLOW_ARG;
	g->target = c->addr;
	g->argn = colon ? atoi(colon + 1) : 0;
	return 0;
}

/* The register variable v ("name|FALLBACK": sdt.h) is in at addr by its
   fallback alone, -1 if none (or v has none). */
int sdt_fallback_reg(struct mt_kimg *k, const char *v, uint64_t addr)
{
	const char *bar = strchr(v, '|');
	struct sdt_flow g;

	return bar && flow_of(k, bar + 1, &g) == 0 ? sdt_flow_reg(k, addr, &g) : -1;
}

/* The register of variable v ("name" or "name|FALLBACK") at addr, -1 if
   none; *fell set when the fallback gave it. */
static int var_reg(struct mt_kimg *k, const char *v, uint64_t addr, int *fell)
{
	char name[64];
	size_t n = strcspn(v, "|");
	int r;

	*fell = 0;
	if (n >= sizeof name)
		return -1;
	memcpy(name, v, n);
	name[n] = 0;
	r = mt_kimg_var_reg(k, addr, name);
	if (r < 0 && (r = sdt_fallback_reg(k, v, addr)) >= 0)
		*fell = 1;
	return r;
}

/* The registers of a site's named variables (sdt_site.vars); 0, or -1
   with the reason in why when one is not in a register at addr. */
static int site_regs(struct mt_kimg *k, const struct sdt_site *s, uint64_t addr,
		     struct sdt_loc *lo, char *why, size_t wlen)
{
	lo->regargs = s->vars[0] != NULL;
	for (int i = 0; i < SDT_MAXVARS; i++) {
		const char *v = lo->regargs ? s->vars[i] : NULL;
		int fell = 0;
		int r = !v ? LK_REG_ZERO : strcmp(v, "$curthread") == 0 ? LK_REG_CURTHREAD :
			v[0] == '%' ? reg_by_name(v) : var_reg(k, v, addr, &fell);
		if (r < 0) {
			snprintf(why, wlen, "%s has no register at %s+%#llx (DWARF)", v,
				 lo->f->name, (unsigned long long)(addr - lo->f->addr));
			return -1;
		}
		lo->argreg[i] = (uint8_t)r;
		lo->fellback |= (uint8_t)(fell << i);
	}
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

/*
 * Append the locations of site s to p's; -1 out of memory.  A site that
 * gives none says why in why (a probe none of whose sites resolves is
 * reported, never silently dropped: struct sdt_miss).
 */
static int resolve_site(struct live *l, struct lprobe *p, const struct sdt_site *s,
			char *why, size_t wlen)
{
	const struct mt_kfunc *f, *c = NULL;
	uint32_t offs[16], before = p->nlocs;
	int n = 1;
	int64_t moff;
	struct sdt_loc *v;

	if (s->where == SDT_COUNTER) {
		if (sdt_counter_sites(l, p, s) < 0)
			return -1;
		for (uint32_t i = before; i < p->nlocs; i++)
			p->locs[i].site = s;
		if (p->nlocs == before)
			snprintf(why, wlen, "no increment of %s in the kernel's text", s->callee);
		return 0;
	}
	f = mt_kimg_lookup(l->k, s->func);
	if (!f || f->inline_only || (f->patch == MT_PATCH_REFUSED && !insn_site_ok(f, s))) {
		snprintf(why, wlen, "%s: %s", s->func, !f ? "no such function in this kernel" :
			 f->inline_only ? "only inlined" : "cannot be patched");
		return 0;
	}
	if (s->where == SDT_RETURN && !f->nrets) {
		snprintf(why, wlen, "%s: no return", s->func);
		return 0;
	}
	offs[0] = 0;
	if (s->where == SDT_CALL || s->where == SDT_AFTER_CALL) {
		c = mt_kimg_lookup(l->k, s->callee);
		n = c ? sdt_insn_offsets(l->k, f, s->where, c->addr, -1, offs, 16) : 0;
		if (n <= 0) {
			snprintf(why, wlen, "no call of %s in %s", s->callee, s->func);
			return 0;
		}
	} else if (s->where == SDT_MEMBER_INC || s->where == SDT_MEMBER_USE) {
		char m[128];
		const char *into = strchr(s->callee, '>');
		int64_t ioff = into ? member_offset(l->k, into + 1) : -1;
		snprintf(m, sizeof m, "%.*s", into ? (int)(into - s->callee) : 127, s->callee);
		moff = member_offset(l->k, m);
		n = moff >= 0 && (!into || ioff >= 0) ?
			sdt_insn_offsets(l->k, f, s->where, (uint64_t)moff, ioff, offs, 16) : 0;
		if (n <= 0) {
			snprintf(why, wlen, "no %s of %s in %s", s->where == SDT_MEMBER_USE ?
				 "use" : "increment", s->callee, s->func);
			return 0;
		}
	}
	v = realloc(p->locs, (p->nlocs + (uint32_t)n) * sizeof *v);
	if (!v)
		return -1;
	p->locs = v;
	for (int i = 0; i < n; i++) {
		struct sdt_loc lo = { .addr = f->addr + offs[i], .f = f, .site = s,
				      .where = s->where };
		if (s->where != SDT_ENTRY && s->where != SDT_RETURN &&
		    site_regs(l->k, s, lo.addr, &lo, why, wlen) < 0)
			continue;
		p->locs[p->nlocs++] = lo;
	}
	return 0;
}

int sdt_miss_add(struct live *l, const char *prov, const struct sdt_probe *sp, int placed,
		 const char *why)
{
	struct sdt_miss *v = realloc(l->miss, (l->nmiss + 1) * sizeof *v);

	if (!v)
		return -1;
	l->miss = v;
	v = &l->miss[l->nmiss++];
	*v = (struct sdt_miss){ .prov = prov, .func = sp->func, .name = sp->name, .placed = placed };
	snprintf(v->why, sizeof v->why, "%s", why);
	return 0;
}

/*
 * Resolve each site of sp into p's locations, recording a site that
 * gives none, or whose function the compiler also inlined somewhere (its
 * copies, which hold the same site, are not traced); -1 out of memory.
 */
static int resolve_sites(struct live *l, const char *prov, const struct sdt_probe *sp,
			 struct lprobe *p)
{
	char why[160] = "", lost[160] = "";

	for (int i = 0; i < SDT_MAXSITES && sp->sites[i].where; i++) {
		const struct sdt_site *s = &sp->sites[i];
		const struct mt_kfunc *f = s->func ? mt_kimg_lookup(l->k, s->func) : NULL;
		uint32_t before = p->nlocs;
		if (resolve_site(l, p, s, why, sizeof why) < 0)
			return -1;
		if (p->nlocs == before && !lost[0])
			snprintf(lost, sizeof lost, "%s", why[0] ? why : "no site");
		else if (f && !f->inline_only && f->ninstances && !lost[0])
			snprintf(lost, sizeof lost, "%s is also inlined in %u places, not traced there",
				 f->name, f->ninstances);
	}
	return lost[0] ? sdt_miss_add(l, prov, sp, p->nlocs != 0, lost) : 0;
}

/*
 * A probe without a func (its sites anywhere in the text, e.g. a
 * counter's increments): one probe per function holding sites, as
 * DTrace names a probe by the function it fires in.
 */
static int sdt_add_split(struct live *l, const char *prov, const struct sdt_probe *sp)
{
	struct lprobe all = { 0 };
	int rc = resolve_sites(l, prov, sp, &all);

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
	if (resolve_sites(l, prov, sp, p) < 0)
		return -1;
	if (!p->nlocs) {	/* not placed in this kernel (sdt_miss): not a probe */
		free(p->locs);
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
	if (live_fmatch(prov, "sdt"))	/* the kernel's own (prov_ksdt.c) */
		return 1;
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
