/*
 * Compiled code for the live target's sites (jit/, mt_jit_plan): the
 * options a site's code runs with (where its raw arguments are), one
 * code for the probes sharing a site, and what -S and
 * MACHTRACE_JIT_STATS say of the probes left to the interpreter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/live_int.h"

/* Sites whose compiled code did not fit the trampoline area (sites.c):
   -S names each, -v counts them. */
void report_nofit(const struct live *l, const struct mt_image *img)
{
	char why[120];

	snprintf(why, sizeof why, "its compiled code does not fit the %llu KiB trampoline area",
		 (unsigned long long)(LK_TRAMP_MAX >> 10));
	for (uint32_t i = 0; i < l->ss.nnofit; i++) {
		const struct lk_site *st = &l->ss.sites[l->ss.nofit[i]];
		mt_jit_unplaced(img, st->probe, st->addr, why);
	}
	if (l->o.verbose && l->ss.nnofit)
		fprintf(stderr, "machtrace: %u probe sites run the interpreter: their compiled "
			"code does not fit the %llu KiB trampoline area\n", l->ss.nnofit,
			(unsigned long long)(LK_TRAMP_MAX >> 10));
}

/* Site st is in s->nofit (its code did not fit: report_nofit said so). */
static int nofit(const struct site_set *s, const struct lk_site *st)
{
	for (uint32_t i = 0; i < s->nnofit; i++)
		if (&s->sites[s->nofit[i]] == st)
			return 1;
	return 0;
}

/* The site at addr (s->sites are sorted by address), NULL if none. */
static const struct lk_site *site_at(const struct site_set *s, uint64_t addr)
{
	uint32_t lo = 0, hi = s->nsites;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->sites[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nsites && s->sites[lo].addr == addr ? &s->sites[lo] : NULL;
}

/*
 * The probes the interpreter runs without mt_jit_plan() having said so
 * (-S, MACHTRACE_JIT_STATS): at an int3 site, and at a site where
 * another probe or a hook fires too (sites.c merges them: the general
 * path fires them all), whose planned code is then unused.
 */
void report_unplanned(const struct live *l, const struct mt_image *img)
{
	const struct site_set *s = &l->ss;

	for (size_t i = 0; i < s->nreq; i++) {
		const struct site_req *r = &s->req[i];
		const struct lk_site *st = site_at(s, r->addr);
		const char *why;
		if (!(r->flags & LK_SF_FIRE) || !st || (st->flags & (LK_SF_JIT | LK_SF_FAST)) ||
		    nofit(s, st))
			continue;
		why = st->kind == LK_SK_INT3 || st->kind == LK_SK_RET ? "an int3 site" :
			r->jit ? "another probe or a hook fires at its site" : NULL;
		if (why)
			mt_jit_unplaced(img, r->probe, r->addr, why);
	}
}

/* The compiled code's options for r's site; why it cannot run compiled
   code there, or NULL. */
static const char *site_opts(const struct site_req *r, enum jit_site site, struct jit_opts *o)
{
	_Static_assert(LK_REG_CURTHREAD == JIT_REG_CURTHREAD && LK_REG_ZERO == JIT_REG_ZERO &&
		       LK_SITE_NREGARGS == sizeof o->regarg, "jit_opts: lk_site's argreg");
	memset(o, 0, sizeof *o);
	o->site = site;
	o->func_off = r->func_off;
	/* compiled code reads registers: an entry's, a ret's rax, or those
	   an SDT site names */
	if (r->flags & LK_SF_REGARGS) {
		o->nregargs = LK_SITE_NREGARGS;
		memcpy(o->regarg, r->argreg, sizeof o->regarg);
	}
	if (r->flags & LK_SF_COUNTER) {		/* fbt.c fire_entry's values */
		o->counter = 1;
		o->cnt_args[0] = (uint64_t)(int64_t)r->cnt_inc;
		o->cnt_args[1] = r->cnt_addr;
	}
	return r->flags & LK_SF_UARGS ? "a site whose arguments are a note's operands" : NULL;
}

/*
 * The probe's compiled code for a jmp site (LK_SF_JIT, jit/, mt_jit_plan):
 * none (the interpreter) if MACHTRACE_NOJIT is set, a clause uses what
 * the compiler does not translate, or the guest has several CPUs and the
 * image reads vtimestamp (the blob keeps its probe-context clock for one
 * CPU).  With several CPUs the code has a copy per CPU (sites.c).
 */
void plan_jit(const struct live *l, struct site_req *r, const struct mt_image *img,
	      enum jit_site site)
{
	struct jit_opts o;
	const char *nojit = site_opts(r, site, &o);

	if (!nojit && l->o.cpus > 1 && mt_image_reads_var(img, MT_VAR_VTIMESTAMP))
		nojit = "the guest has several CPUs, and vtimestamp's clock in compiled code is one CPU's";

	r->jit = mt_jit_plan(img, r->probe, &o, r->addr, nojit);
	if (r->jit)
		r->flags |= LK_SF_JIT;
	else
		r->flags &= ~LK_SF_JIT;
}

static void drop_jit(struct site_req *r)
{
	if (r->jit) {
		mt_jit_free(r->jit);
		free(r->jit);
	}
	r->jit = NULL;
	r->flags &= ~LK_SF_JIT;
}

/* Can the requests [i, e) at one address share one compiled code? */
static int shareable(const struct site_set *s, size_t i, size_t e)
{
	const uint32_t ok = LK_SF_FIRE | LK_SF_JIT | LK_SF_REGARGS | LK_SF_COUNTER;

	if (e - i < 2 || e - i > 3)
		return 0;
	for (size_t k = i; k < e; k++) {
		const struct site_req *q = &s->req[k];
		if (!q->jit || q->kind != LK_SK_JMP || (q->flags & ~ok) ||
		    !(q->flags & LK_SF_JIT) || (k > i && q->probe == s->req[k - 1].probe))
			return 0;
	}
	return 1;
}

/*
 * Probes sharing a jmp site (send and receive at mach_msg_trap's
 * handoff): the first request's code fires them all, in the order
 * sites.c merges them (its general path's), when each compiled alone
 * and no hook or stamp is there; the others' code goes.  Otherwise
 * sites.c leaves the site to the general path, which fires them all.
 */
void combine_shared(struct site_set *s, const struct mt_image *img)
{
	size_t e;

	sites_sort(s);
	for (size_t i = 0; i < s->nreq; i = e) {
		struct site_req *r = &s->req[i];
		struct jit_opts o;
		struct jit_code *c;
		for (e = i + 1; e < s->nreq && s->req[e].addr == r->addr; e++)
			;
		if (!shareable(s, i, e) || site_opts(r, JIT_SITE_ENTRY, &o))
			continue;
		for (size_t k = i + 1; k < e; k++)
			o.also[o.nalso++] = s->req[k].probe;
		if (!(c = mt_jit_plan(img, r->probe, &o, r->addr, NULL)))
			continue;
		for (size_t k = i; k < e; k++)
			drop_jit(&s->req[k]);
		r->jit = c;
		r->jit_all = 1;
		r->flags |= LK_SF_JIT;
	}
}
