/*
 * The live target's plan for an enabling image: which kernel bytes
 * become which sites (struct lk_site, built by sites.c), the tick and
 * profile probes the blob's timer hook runs, and the blob's own hooks:
 * clock_interrupt (timer service, deadman), host_reboot (hold a
 * rebooting kernel until the host drained), pcb_terminate and
 * machine_task_terminate (a destroyed thread's or task's pid/tid number
 * is forgotten, its user sites removed), build_args_and_stack (a boot
 * module's task gets its user sites, only when there are some).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/live_int.h"

/*
 * The fast path: a probe whose only clause is an unpredicated, keyless
 * `@ = count()` (one action) only needs an increment, of CPU 0's count
 * without a lock: not on a guest of several CPUs.
 */
static uint32_t fast_count_aggid(const struct live *l, const struct mt_image *img,
				 const struct mt_probe *p)
{
	const uint8_t *b = (const uint8_t *)img;
	const struct mt_ecb *ecb = (const void *)(b + img->ecbs_off);
	const struct mt_clause *cl;
	const struct mt_action *act;
	const struct mt_agg *ag;

	if (p->necbs != 1 || getenv("MACHTRACE_NOFAST") || l->o.cpus > 1)
		return 0;
	cl = (const struct mt_clause *)(b + img->clauses_off) + ecb[p->ecb0].clause;
	if (cl->pred_difo || cl->nacts != 1 || cl->flags || cl->recsize)
		return 0;
	act = (const struct mt_action *)(b + img->actions_off) + cl->act0;
	if (act->kind != MT_ACT_AGG || act->arg == 0 || act->arg > img->naggs)
		return 0;
	ag = (const struct mt_agg *)(b + img->aggs_off) + (act->arg - 1);
	if (ag->func != MT_AGG_COUNT || ag->nkeys != 0 || ag->keysize != 8 || ag->nvals != 1)
		return 0;
	return (uint32_t)act->arg;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define MAX_INLINE_SITES 64
/* the most bytes a jmp at an instruction displaces (5, plus the
   longest x86 instruction less one) */
#define JMP_INSN_MAX	19

/*
 * Where the entry probe of an inline-only function goes: the entry of
 * each of its inline instances (at most `max`) that starts an instruction
 * of a probeable function.
 */
static size_t inline_sites(struct live *l, const struct mt_kfunc *f, uint64_t *out, size_t max)
{
	const struct mt_kinline *in;
	size_t n = mt_kimg_inlines(l->k, f->name, &in), m = 0;
	uint32_t offs[SDT_MAXINSNS];

	for (size_t i = 0; i < n && m < max; i++) {
		const struct mt_kfunc *cf = mt_kimg_func_at(l->k, in[i].entry);
		int ni;
		if (!cf || cf->patch == MT_PATCH_REFUSED || cf->inline_only || in[i].entry == cf->addr)
			continue;
		ni = sites_insn_offsets(l->k, cf, offs, SDT_MAXINSNS);
		for (int j = 0; j < ni; j++)
			if (cf->addr + offs[j] == in[i].entry) {
				if (!m || out[m - 1] != in[i].entry)
					out[m++] = in[i].entry;
				break;
			}
	}
	return m;
}

/* Append p's instruction sites (calls, after calls) to v[*n]; NULL,
   with v freed, if out of memory. */
static uint64_t *sdt_insn_addrs(const struct lprobe *p, uint64_t *v, size_t *n, size_t *cap)
{
	uint64_t *nv;

	if (!(nv = realloc(v, (*cap += p->nlocs) * sizeof *v))) {
		free(v);
		return NULL;
	}
	for (uint32_t k = 0; k < p->nlocs; k++)
		if (p->locs[k].where != SDT_ENTRY && p->locs[k].where != SDT_RETURN)
			nv[(*n)++] = p->locs[k].addr;
	return nv;
}

#define MAX_STAMPERS 16

/* sdt_insn_addrs of p and of the probes stamping for it. */
static uint64_t *sdt_all_insn_addrs(const struct live *l, const struct lprobe *p, uint64_t *v,
				    size_t *n, size_t *cap)
{
	const struct lprobe *st[MAX_STAMPERS];
	int ns = sdt_stampers(l, p, st, MAX_STAMPERS);

	v = sdt_insn_addrs(p, v, n, cap);
	for (int i = 0; v && i < ns; i++)
		v = sdt_insn_addrs(st[i], v, n, cap);
	return v;
}

/* Addresses of the image's instruction probes (kinst, inline
   entries, SDT calls), sorted: jmp sites must not cover them. */
static uint64_t *kinst_addrs(struct live *l, const struct mt_image *img, size_t *n)
{
	const struct mt_probe *pr = (const void *)((const uint8_t *)img + img->probes_off);
	size_t cap = img->nprobes + 1;
	uint64_t *v = calloc(cap, sizeof *v), *nv;

	*n = 0;
	for (uint32_t i = 0; v && i < img->nprobes; i++) {
		const struct lprobe *p = live_probe_by_id(l, pr[i].id);
		if (!p || !p->f || !pr[i].necbs)
			continue;
		if (p->sdt || p->locs) {	/* SDT, kinst inline */
			if (!(v = sdt_all_insn_addrs(l, p, v, n, &cap)))
				return NULL;
		} else if (p->kind == MT_PK_OTHER) {
			v[(*n)++] = p->f->addr + p->arg;
		} else if (p->kind == MT_PK_FBT_ENTRY && p->f->inline_only) {
			if (!(nv = realloc(v, (cap += MAX_INLINE_SITES) * sizeof *v))) {
				free(v);
				return NULL;
			}
			v = nv;
			*n += inline_sites(l, p->f, v + *n, MAX_INLINE_SITES);
		}
	}
	if (v)
		qsort(v, *n, sizeof *v, cmp_u64);
	return v;
}

/* A kinst probe in [lo, hi)?  Then jmp sites there would hide it. */
static int kinst_in(const uint64_t *v, size_t n, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] >= lo && v[i] < hi)
			return 1;
	return 0;
}

/* jmp (r->range bytes displaced) or int3 for f's entry. */
static void entry_kind(struct live *l, struct site_req *r, const struct mt_kfunc *f,
		       const uint64_t *kv, size_t nk)
{
	unsigned len = getenv("MACHTRACE_NORELOC") && f->patch != MT_PATCH_JMP ? 0 :
		sites_entry_range(&l->ss, l->k, f);

	r->kind = len && !kinst_in(kv, nk, f->addr + 1, f->addr + len) ? LK_SK_JMP : LK_SK_INT3;
	r->range = r->kind == LK_SK_JMP ? len : 0;
}

static int add_req(struct mt_target *t, const struct site_req *r)
{
	return sites_add(&((struct live *)t->priv)->ss, r) < 0 ? live_err(t, "out of memory") : 0;
}

/* An entry probe of f (r: its probe and flags). */
static int plan_entry(struct mt_target *t, struct site_req *r, const struct mt_kfunc *f,
		      const struct mt_image *img, const struct mt_probe *pr,
		      const uint64_t *kv, size_t nk)
{
	struct live *l = t->priv;

	r->f = f;
	if (f->inline_only) {
		uint64_t at[MAX_INLINE_SITES];
		size_t m = inline_sites(l, f, at, MAX_INLINE_SITES);
		r->kind = LK_SK_INT3;
		for (size_t k = 0; k < m; k++) {
			r->addr = at[k];
			if (add_req(t, r) < 0)
				return -1;
		}
		return 0;
	}
	r->addr = f->addr;
	entry_kind(l, r, f, kv, nk);
	r->fast_aggid = r->kind == LK_SK_JMP && pr ? fast_count_aggid(l, img, pr) : 0;
	if (r->fast_aggid)
		r->flags |= LK_SF_FAST;
	else if (r->kind == LK_SK_JMP && pr && (r->flags & LK_SF_FIRE))
		plan_jit(l, r, img, JIT_SITE_ENTRY);
	return add_req(t, r);
}

/* A return probe of f: a site at each of its rets. */
static int plan_return(struct mt_target *t, struct site_req *r, const struct mt_kfunc *f,
		       const struct mt_image *img, const uint64_t *kv, size_t nk)
{
	struct live *l = t->priv;

	r->f = f;
	for (unsigned k = 0; k < f->nrets; k++) {
		uint64_t start = 0;
		r->ret_at = f->addr + f->rets[k];
		r->func_off = f->rets[k];
		r->range = getenv("MACHTRACE_NOJMPRET") ? 0 :
			sites_ret_range(&l->ss, l->k, f, f->rets[k], &start);
		/* an instruction probe in it, or a jmp of one before it
		   reaching into it (plan_insn: at most JMP_INSN_MAX bytes) */
		if (r->range && kinst_in(kv, nk, start - JMP_INSN_MAX, r->ret_at + 1))
			r->range = 0;
		r->kind = r->range ? LK_SK_JMPRET : LK_SK_RET;
		r->addr = r->range ? start : r->ret_at;
		r->jit = NULL;
		if (r->kind == LK_SK_JMPRET && (r->flags & LK_SF_FIRE))
			plan_jit(l, r, img, JIT_SITE_RETURN);
		if (add_req(t, r) < 0)
			return -1;
	}
	return 0;
}

/* An instruction probe: an int3 at addr in f. */
static int plan_insn(struct mt_target *t, struct site_req *r, const struct mt_kfunc *f,
		     uint64_t addr)
{
	r->f = f;
	r->addr = addr;
	r->kind = LK_SK_INT3;
	return add_req(t, r);
}

/*
 * An SDT site at an instruction: a jmp over the whole instructions from
 * addr when they can be displaced and hold no other instruction probe
 * (sites_insn_range; as an entry's, its registers are the callee's
 * arguments at a call), compiled when its raw arguments are those
 * registers; else an int3.  MACHTRACE_NOJMPINSN keeps the int3.
 */
static int plan_sdt_insn(struct mt_target *t, struct site_req *r, const struct mt_kfunc *f,
			 uint64_t addr, const struct mt_image *img, const struct mt_probe *pr,
			 const uint64_t *kv, size_t nk)
{
	struct live *l = t->priv;
	unsigned len = getenv("MACHTRACE_NOJMPINSN") ? 0 : sites_insn_range(&l->ss, l->k, f, addr);

	if (!len || len > JMP_INSN_MAX || kinst_in(kv, nk, addr + 1, addr + len))
		return plan_insn(t, r, f, addr);
	r->f = f;
	r->addr = addr;
	r->kind = LK_SK_JMP;
	r->range = len;
	if (pr && (r->flags & LK_SF_FIRE))
		plan_jit(l, r, img, JIT_SITE_ENTRY);
	return add_req(t, r);
}

/* The sites of p, each with flags (firing p, or stamping for it). */
static int plan_sdt_sites(struct mt_target *t, const struct lprobe *p, uint32_t flags,
			  uint32_t probe, const struct mt_image *img, const struct mt_probe *pr,
			  const uint64_t *kv, size_t nk)
{
	for (uint32_t k = 0; k < p->nlocs; k++) {
		const struct sdt_loc *lo = &p->locs[k];
		struct site_req r = { .flags = flags, .probe = probe,
				      .noargs = lo->where == SDT_LINE || lo->where == SDT_INLINE_EXIT };
		int rc;

		if (lo->regargs && (flags & LK_SF_FIRE)) {
			r.flags |= LK_SF_REGARGS;
			memcpy(r.argreg, lo->argreg, sizeof r.argreg);
		}
		if (lo->nuargs && (flags & LK_SF_FIRE)) {
			r.flags |= LK_SF_UARGS;
			r.uargs = lo->uargs;
			r.nuargs = lo->nuargs;
		}
		if (lo->where == SDT_COUNTER) {
			r.flags |= LK_SF_COUNTER;
			r.cnt_addr = lo->counter;
			r.cnt_inc = lo->inc;
		}
		rc = lo->where == SDT_ENTRY ? plan_entry(t, &r, lo->f, img, pr, kv, nk) :
			lo->where == SDT_RETURN ? plan_return(t, &r, lo->f, img, kv, nk) :
			plan_sdt_insn(t, &r, lo->f, lo->addr, img, pr, kv, nk);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/*
 * An SDT probe: each of its sites, and, when an argument is the time
 * since a stamp (MT_ARGMAP_ELAPSED), the sites of the probes that stamp
 * it (vm:::fault for vm:::fault-done), whether they are enabled or not.
 */
static int plan_sdt(struct mt_target *t, const struct lprobe *p, uint32_t probe,
		    const struct mt_image *img, const struct mt_probe *pr,
		    const uint64_t *kv, size_t nk)
{
	const struct lprobe *st[MAX_STAMPERS];
	int ns = sdt_stampers(t->priv, p, st, MAX_STAMPERS);

	if (plan_sdt_sites(t, p, LK_SF_FIRE, probe, img, pr, kv, nk) < 0)
		return -1;
	for (int i = 0; i < ns; i++)
		if (plan_sdt_sites(t, st[i], LK_SF_STAMP, 0, img, NULL, kv, nk) < 0)
			return -1;
	return 0;
}

/* A tick or profile probe: run by the blob's timer hook. */
static int plan_tick(struct mt_target *t, struct lk_ctl *c, uint32_t probe, uint64_t ns,
		     uint32_t kind)
{
	if (c->nticks >= LK_MAX_TICKS)
		return live_err(t, "too many tick/profile probes (%u at most)", LK_MAX_TICKS);
	c->ticks[c->nticks].probe = probe;
	c->ticks[c->nticks].interval_ns = ns;
	c->ticks[c->nticks].kind = kind;
	c->nticks++;
	return 0;
}

/* The user sites of p (usdt, pid), firing image probe `probe`. */
static int plan_user(struct mt_target *t, const struct lprobe *p, uint32_t probe)
{
	struct live *l = t->priv;
	struct lk_usite *nv;

	if (l->nus + p->nusites > LK_USITES_MAX)
		return live_err(t, "too many user probe sites (%u at most)", LK_USITES_MAX);
	if (!(nv = realloc(l->us, (l->nus + p->nusites) * sizeof *nv)))
		return live_err(t, "out of memory");
	l->us = nv;
	for (uint32_t k = 0; k < p->nusites; k++) {
		nv[l->nus] = p->usites[k];
		nv[l->nus++].probe = probe;
	}
	return 0;
}

static int cmp_usite(const void *a, const void *b)
{
	const struct lk_usite *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->probe < y->probe ? -1 : x->probe > y->probe;
}

/*
 * User sites trap from user mode to the thread's rsp0, the top of its
 * pcb->iss (struct i386_saved_state), and entry.S saves 120 bytes below
 * the CPU's frame there: the frame (rip .. ss, 40 bytes) must end the
 * saved state and leave those bytes inside it.
 */
static int user_trap_room(struct live *l, char *why, size_t len)
{
	uint64_t size = 0, rip = 0;
	char type[64];

	if (mt_kimg_struct_size(l->k, "i386_saved_state", &size) < 0 ||
	    mt_kimg_member(l->k, "i386_saved_state", "eip", &rip, type, sizeof type) < 0)
		return snprintf(why, len, "the kernel's DWARF lacks struct i386_saved_state"), -1;
	if (rip + 40 != size || rip < 120)
		return snprintf(why, len, "struct i386_saved_state (%llu bytes, eip at %llu) leaves "
				"no room for the blob's 120-byte register save below the trap frame",
				(unsigned long long)size, (unsigned long long)rip), -1;
	return 0;
}

/*
 * tick/profile probes from every CPU's local APIC timer (runtime/x86_64/
 * apic.c), unless MACHTRACE_NO_LAPIC is set, or a timer interrupt from user mode could not save its registers as the user
 * int3 does; the blob may still
 * decline at GO.  Otherwise they stay on the kernel's clock interrupt.
 */
static int tick_lapic(struct live *l)
{
	char why[160];

	l->tick_why[0] = 0;
	if (getenv("MACHTRACE_NO_LAPIC")) {
		snprintf(l->tick_why, sizeof l->tick_why, "MACHTRACE_NO_LAPIC is set");
		return 0;
	}
	if (user_trap_room(l, why, sizeof why) < 0) {
		snprintf(l->tick_why, sizeof l->tick_why, "%s", why);
		return 0;
	}
	return 1;
}

/* Site requests for every probe of the image, plus the blob's hooks. */
static int plan(struct mt_target *t, const struct mt_image *img, struct lk_ctl *c,
		const uint64_t *kv, size_t nk)
{
	struct live *l = t->priv;
	const struct mt_probe *pr = (const void *)((const uint8_t *)img + img->probes_off);
	const struct mt_kfunc *f;
	struct site_req r;

	for (uint32_t i = 0; i < img->nprobes; i++) {
		const struct lprobe *p = live_probe_by_id(l, pr[i].id);
		int rc = 0;
		if (!p || !pr[i].necbs)
			continue;
		memset(&r, 0, sizeof r);
		r.flags = LK_SF_FIRE;
		r.probe = i;
		if (p->usites)
			rc = plan_user(t, p, i);
		else if (p->sdt || p->locs)	/* SDT, kinst inline */
			rc = plan_sdt(t, p, i, img, &pr[i], kv, nk);
		else if (p->kind == MT_PK_FBT_ENTRY)
			rc = plan_entry(t, &r, p->f, img, &pr[i], kv, nk);
		else if (p->kind == MT_PK_FBT_RETURN)
			rc = plan_return(t, &r, p->f, img, kv, nk);
		else if (p->kind == MT_PK_OTHER && p->f) {	/* kinst, line */
			r.noargs = 1;
			rc = plan_insn(t, &r, p->f, p->f->addr + p->arg);
		}
		else if (p->kind == MT_PK_TICK || p->kind == MT_PK_PROFILE)
			rc = plan_tick(t, c, i, p->arg, p->kind == MT_PK_PROFILE ?
				       LK_TICK_PROFILE : LK_TICK_ONE);
		if (rc < 0)
			return -1;
	}
	/* the blob's own hooks: the clock tick, the reboot, creations and
	   destructions (pid/tid numbers) */
	static const struct { const char *fn; uint32_t flag; } hooks[] = {
		{ "clock_interrupt", LK_SF_INTERNAL_TICK },
		{ "host_reboot", LK_SF_INTERNAL_END },
		{ "pcb_terminate", LK_SF_INTERNAL_FORGET },
		{ "machine_task_terminate", LK_SF_INTERNAL_FORGET | LK_SF_INTERNAL_UREMOVE },
		/* user sites (usdt, pid): a boot module's text is loaded,
		   nothing of it has run (kern/bootstrap.c user_bootstrap) */
		{ "build_args_and_stack", LK_SF_INTERNAL_UINSTALL },
		{ "ipc_task_enable", LK_SF_INTERNAL_BORN_TASK },
		{ "ipc_thread_enable", LK_SF_INTERNAL_BORN_THREAD },
		/* vtimestamp's clocks: every context switch (kvtime.c) */
		{ "switch_context", LK_SF_INTERNAL_SWITCH2 },
		{ "stack_handoff", LK_SF_INTERNAL_SWITCH1 },
	};
	int vtime = mt_image_reads_var(img, MT_VAR_VTIMESTAMP);
	if (c->nticks)
		c->tick_lapic = tick_lapic(l);
	if (vtime)
		c->flags |= LK_CTL_VTIME;
	if (l->nus) {
		char why[200];
		if (user_trap_room(l, why, sizeof why) < 0)
			return live_err(t, "user probes cannot be used: %s", why);
		qsort(l->us, l->nus, sizeof *l->us, cmp_usite);
	}
	for (size_t i = 0; i < sizeof hooks / sizeof *hooks; i++) {
		if (!hooks[i].fn || (hooks[i].flag & LK_SF_INTERNAL_UINSTALL && !l->nus) ||
		    (hooks[i].flag & (LK_SF_INTERNAL_SWITCH1 | LK_SF_INTERNAL_SWITCH2) && !vtime))
			continue;
		f = mt_kimg_lookup(l->k, hooks[i].fn);
		if (!f || f->patch == MT_PATCH_REFUSED)
			return live_err(t, "kernel function %s cannot be hooked", hooks[i].fn);
		memset(&r, 0, sizeof r);
		r.addr = f->addr;
		r.f = f;
		entry_kind(l, &r, f, kv, nk);
		r.flags = hooks[i].flag;
		if (sites_add(&l->ss, &r) < 0)
			return live_err(t, "out of memory");
	}
	combine_shared(&l->ss, img);
	if (sites_build(&l->ss, l->k, t->err, sizeof t->err) < 0)
		return -1;
	report_nofit(l, img);
	report_unplanned(l, img);
	return 0;
}

int live_plan(struct mt_target *t, const struct mt_image *img, struct lk_ctl *c)
{
	size_t nk;
	uint64_t *kv = kinst_addrs(t->priv, img, &nk);
	int rc;

	if (!kv)
		return live_err(t, "out of memory");
	rc = plan(t, img, c, kv, nk);
	free(kv);
	return rc;
}
