/*
 * State area layout and set-up (see the layout comment in rt.h).
 * mt_rt_init runs once per session, before any probe fires, on the CPU
 * that installs the enabling; nothing else runs concurrently with it.
 */
#include "rt.h"

#define RT_DYN_SPARE		3

struct layout {
	uint64_t cpubuf, cpustat, aggbuf, rt, cpus, slots[3], image;
	uint64_t globals, dynhash, dyn, tls, specs, percpu, stride, specdata, total;
	uint64_t pc_buf, pc_agg, pc_agghash, pc_aggent, pc_ecbent, pc_scratch, pc_locals,
		 pc_stage, pc_dynsnap;
	uint64_t bufsize, aggsize, dynvarsize, specsize, scratchsize;
	uint64_t alloca_limit, bufsize_opt;
	uint32_t minrec, maxrec;
	uint32_t ncpus, nspec, strsize;
	uint32_t nslots[3], globals_size, locals_size, stagesize;
	uint32_t dyn_nchunks, dyn_nbuckets, dyn_chunksize, dyn_keycap;
	uint32_t tls_nrows, tls_ncols, tls_stride;
	uint32_t spec_stride, agg_nbuckets;
};

static uint32_t pow2_atmost(uint64_t n)
{
	uint32_t p = 1;

	while ((uint64_t)p * 2 <= n && p < (1u << 30))
		p *= 2;
	return p;
}

/*
 * The scalar thread-locals' rows and their share of dynvarsize (rt.h,
 * "tls.c"); the rest of dynvarsize, returned, is the dynamic variables'.
 */
static uint64_t tls_size(struct layout *L, uint32_t ndyn)
{
	uint64_t share, n;

	if (L->tls_ncols == 0)
		return L->dynvarsize;
	L->tls_stride = 8 * (1 + L->tls_ncols);
	share = ndyn ? L->dynvarsize / (L->tls_ncols + ndyn) * L->tls_ncols :
		L->dynvarsize;
	n = share / L->tls_stride;
	if (n < RT_TLS_MINROWS)
		n = RT_TLS_MINROWS;
	L->tls_nrows = pow2_atmost(n > RT_TLS_MAXROWS ? RT_TLS_MAXROWS : n);
	return L->dynvarsize - share;
}

static void var_sizes(const struct mt_image *img, struct layout *L)
{
	const struct mt_var *vars =
		(const void *)((const uint8_t *)img + img->vars_off);
	uint32_t maxkey = 0, maxval = 8;
	uint32_t ndyn = 0;
	uint64_t dynspace;

	for (uint32_t i = 0; i < img->nvars; i++) {
		const struct mt_var *v = &vars[i];
		uint32_t slot = v->id >= MT_VAR_USER ? v->id - MT_VAR_USER : 0;
		uint32_t sz = (uint32_t)RT_ALIGN(v->size ? v->size : 8, 8);

		if (v->scope > MT_VS_LOCAL)
			continue;
		if (v->kind == MT_VK_SCALAR && v->scope != MT_VS_THREAD &&
		    (v->flags & MT_VF_REF))
			sz += 8;		/* the NULL flag, see rt_varslot */
		if (slot + 1 > L->nslots[v->scope])
			L->nslots[v->scope] = slot + 1;
		if (mt_var_tls(v)) {
			L->tls_ncols++;
		} else if (v->scope == MT_VS_THREAD || v->kind == MT_VK_ASSOC) {
			ndyn++;
			if (v->keysize > maxkey)
				maxkey = v->keysize;
			if (sz > maxval)
				maxval = sz;
		} else if (v->scope == MT_VS_GLOBAL) {
			L->globals_size += sz;
		} else {
			L->locals_size += sz;
		}
	}
	dynspace = tls_size(L, ndyn);
	if (maxkey < 64)
		maxkey = 64;
	L->dyn_keycap = (uint32_t)RT_ALIGN(16 + maxkey, 8);
	L->dyn_chunksize = (uint32_t)sizeof(struct rt_dvar) + L->dyn_keycap +
		maxval;
	/*
	 * dynvarsize buys whole chunks (header, key, value, hash head), plus
	 * a few spare ones, as illumos keeps at least one chunk and
	 * dtrace-utils' BPF hash maps a per-CPU reserve: tiny dynvarsize
	 * values still hold a handful of variables (variables/tvar tests).
	 */
	if (ndyn) {
		L->dyn_nchunks = (uint32_t)(dynspace /
			(L->dyn_chunksize + 4)) + RT_DYN_SPARE;
		L->dyn_nbuckets = pow2_atmost(L->dyn_nchunks ? L->dyn_nchunks : 1);
	}
}

/* Staging size; also the smallest and largest clause records. */
static uint32_t stage_size(const struct mt_image *img, uint32_t *minrec,
			   uint32_t *maxrec)
{
	const struct mt_clause *cl =
		(const void *)((const uint8_t *)img + img->clauses_off);
	uint32_t max = RT_ERRRECSIZE;

	*minrec = UINT32_MAX;
	*maxrec = 0;
	const struct mt_action *act =
		(const void *)((const uint8_t *)img + img->actions_off);

	/* compiled code leaves an aggregation's values there (MT_JH_AGGVALS) */
	for (uint32_t i = 0; i < img->nactions; i++)
		if (act[i].kind == MT_ACT_AGG && 8 * act[i].nrecs > max)
			max = 8 * act[i].nrecs;
	for (uint32_t i = 0; i < img->nclauses; i++) {
		uint32_t n = RT_HDRSIZE + cl[i].recsize;
		if (n > max)
			max = n;
		if (n > *maxrec)
			*maxrec = n;
		if (n < *minrec)
			*minrec = n;
	}
	return (uint32_t)RT_ALIGN(max, 8);
}

/* Compute every offset; returns the total size (0 if impossible). */
static uint64_t layout(const struct mt_image *img, struct layout *L)
{
	const struct mt_options *o = &img->opt;
	uint64_t off;

	rt_memset(L, 0, sizeof(*L));
	if (img->magic != MT_IMAGE_MAGIC || img->version != MT_ABI_VERSION ||
	    img->size < sizeof(*img))
		return 0;
	L->ncpus = o->ncpus ? o->ncpus : 1;
	L->nspec = o->nspec;
	L->strsize = o->strsize;
	/* sizes are the image's (mt_opts_image made them), taken literally:
	   0 means no space (bufsize=0 cannot hold any record: "Enabling
	   exceeds size of buffer") */
	L->bufsize_opt = o->bufsize;
	L->bufsize = o->bufsize & ~7ull;
	L->aggsize = o->aggsize & ~7ull;
	L->dynvarsize = o->dynvarsize & ~7ull;
	L->specsize = o->specsize & ~7ull;
	L->scratchsize = RT_ALIGN(o->scratchsize, 8);
	/* the host's scratchsize has 8 reserved bytes, as dtrace-utils */
	L->alloca_limit = L->scratchsize > 8 ? L->scratchsize - 8 : 0;
	/* string results need room beyond what alloca() may take */
	L->scratchsize += MT_SCRATCH_STRROOM(L->strsize);
	var_sizes(img, L);
	L->stagesize = stage_size(img, &L->minrec, &L->maxrec);
	/* a buffer always holds one of the largest records (dtrace-utils'
	   perf buffers are page-rounded): drops/drp.DTRACEDROP_PRINCIPAL*.d */
	if (L->bufsize && L->bufsize < L->maxrec)
		L->bufsize = L->maxrec;
	L->agg_nbuckets = pow2_atmost(L->aggsize / 256 ? L->aggsize / 256 : 1);
	if (L->agg_nbuckets < 16)
		L->agg_nbuckets = 16;

	off = RT_ALIGN(sizeof(struct mt_cb), 64);
	L->cpubuf = off;
	off = RT_ALIGN(off + L->ncpus * sizeof(struct mt_cpubuf), 64);
	L->cpustat = off;
	off = RT_ALIGN(off + L->ncpus * sizeof(struct mt_cpustat), 64);
	L->aggbuf = off;
	off = RT_ALIGN(off + L->ncpus * sizeof(struct mt_aggbuf), 64);
	L->rt = off;
	off = RT_ALIGN(off + sizeof(struct rt), 64);
	L->cpus = off;
	off = RT_ALIGN(off + L->ncpus * sizeof(struct rt_cpu), 64);
	for (int s = 0; s < 3; s++) {
		L->slots[s] = off;
		off = RT_ALIGN(off + L->nslots[s] * sizeof(struct rt_varslot), 64);
	}
	L->image = off;
	off = RT_ALIGN(off + img->size, 64);
	L->globals = off;
	off = RT_ALIGN(off + L->globals_size, 64);
	L->dynhash = off;
	off = RT_ALIGN(off + (uint64_t)L->dyn_nbuckets * 4, 64);
	L->dyn = off;
	off = RT_ALIGN(off + (uint64_t)L->dyn_nchunks * L->dyn_chunksize, 64);
	L->tls = off;
	off = RT_ALIGN(off + (uint64_t)L->tls_nrows * L->tls_stride, 64);
	L->spec_stride = (uint32_t)RT_ALIGN(sizeof(struct rt_spec) +
					    sizeof(struct rt_specpart) * L->ncpus, 8);
	L->specs = off;
	off = RT_ALIGN(off + (uint64_t)L->nspec * L->spec_stride, 64);

	L->pc_buf = 0;
	L->pc_agg = RT_ALIGN(L->bufsize, 64);
	L->pc_agghash = RT_ALIGN(L->pc_agg + L->aggsize, 64);
	L->pc_aggent = RT_ALIGN(L->pc_agghash + 4ull * L->agg_nbuckets, 64);
	L->pc_ecbent = RT_ALIGN(L->pc_aggent + 4ull * img->naggs, 64);
	L->pc_scratch = RT_ALIGN(L->pc_ecbent + 8ull * img->necbs, 64);
	L->pc_locals = RT_ALIGN(L->pc_scratch + L->scratchsize, 64);
	L->pc_stage = RT_ALIGN(L->pc_locals + L->locals_size, 64);
	L->pc_dynsnap = RT_ALIGN(L->pc_stage + L->stagesize, 64);
	L->stride = RT_ALIGN(L->pc_dynsnap + 8ull * L->ncpus, 64);
	L->percpu = off;
	off += L->stride * L->ncpus;
	L->specdata = off;
	off += (uint64_t)L->nspec * L->ncpus * L->specsize;
	L->total = RT_ALIGN(off, 64);
	return L->total;
}

static uint32_t end_bytes(const struct mt_image *img)
{
	const uint8_t *b = (const uint8_t *)img;
	const struct mt_probe *pr = (const void *)(b + img->probes_off);
	const struct mt_ecb *ecbs = (const void *)(b + img->ecbs_off);
	const struct mt_clause *cl = (const void *)(b + img->clauses_off);
	uint32_t sum = 0;

	for (uint32_t p = 0; p < img->nprobes; p++)
		for (uint32_t e = 0; pr[p].kind == MT_PK_END && e < pr[p].necbs;
		     e++)
			sum += RT_HDRSIZE + cl[ecbs[pr[p].ecb0 + e].clause].recsize;
	return sum;
}

/*
 * Whether the enabling fits its buffers; NULL, or dtrace's reason ("END
 * enablings exceed size of principal buffer" for fill, "Enabling exceeds
 * size of buffer" otherwise).
 */
static const char *fits(const struct mt_image *img, const struct layout *L)
{
	const struct mt_agg *aggs =
		(const void *)((const uint8_t *)img + img->aggs_off);
	const struct mt_var *vars =
		(const void *)((const uint8_t *)img + img->vars_off);

	/* dtrace-utils' records carry a 40-byte perf event header on top
	   of ours; keep its minimum so an enabling fits where it fits there
	   (options/err.b-too-low.d: -b59 is too small for exit(0)) */
	if (img->opt.bufpolicy == MT_BUFPOLICY_FILL &&
	    end_bytes(img) > L->bufsize_opt)
		return "END enablings exceed size of principal buffer";
	if (img->nclauses && L->minrec + 40 > L->bufsize_opt)
		return "Enabling exceeds size of buffer";
	/* as dtrace-utils: the values (and entry header) must fit; keys
	   that make an entry too big only cause aggregation drops
	   (drops/drp.DTRACEDROP_AGGREGATION.d vs aggs/err.aggsize-too-small.d) */
	for (uint32_t i = 0; i < img->naggs; i++)
		if (sizeof(struct mt_aggent) + 8ull * aggs[i].nvals > L->aggsize)
			return "Enabling exceeds size of buffer";
	/* dtrace-utils sizes associative arrays from dynvarsize: one that
	   cannot hold a single element (variable id, key tuple, value) is
	   refused, 20 bytes holding an int-keyed int element
	   (assocs/err.dynvarsize-too-small.d vs tst.store_zero_safe.d) */
	for (uint32_t i = 0; i < img->nvars; i++)
		if (vars[i].kind == MT_VK_ASSOC && vars[i].scope <= MT_VS_LOCAL &&
		    4ull + vars[i].keysize + vars[i].size > img->opt.dynvarsize)
			return "Enabling exceeds size of buffer";
	return 0;
}

uint64_t mt_rt_size(const struct mt_image *img)
{
	struct layout L;

	return layout(img, &L);
}

static void assign_slots(struct rt *rt, const struct layout *L)
{
	uint32_t goff = 0, loff = 0, col = 0;

	for (int s = 0; s < 3; s++)
		for (uint32_t i = 0; i < rt->nslots[s]; i++)
			rt->slots[s][i].var = RT_NOSLOT;
	for (uint32_t i = 0; i < rt->img->nvars; i++) {
		const struct mt_var *v = &rt->t.vars[i];
		struct rt_varslot *sl;
		uint32_t sz = (uint32_t)RT_ALIGN(v->size ? v->size : 8, 8);

		if (v->scope > MT_VS_LOCAL || v->id < MT_VAR_USER)
			continue;
		if (v->flags & MT_VF_REF)
			sz += 8;
		sl = &rt->slots[v->scope][v->id - MT_VAR_USER];
		sl->var = i;
		sl->size = v->size ? v->size : 8;
		sl->flags = v->flags;
		sl->kind = v->kind;
		sl->keysize = v->keysize;
		if (mt_var_tls(v)) {	/* the order of mt_tls_column */
			sl->tls = 1;
			sl->off = col++;
		} else if (v->scope == MT_VS_GLOBAL && v->kind == MT_VK_SCALAR) {
			sl->off = goff;
			goff += sz;
		} else if (v->scope == MT_VS_LOCAL && v->kind == MT_VK_SCALAR) {
			sl->off = loff;
			loff += sz;
		}
	}
}

static void setup_tables(struct rt *rt, const struct mt_image *img)
{
	rt->img = img;
	rt->t = mt_image_tabs(img);
}

static void setup_cpus(struct rt *rt, const struct layout *L)
{
	uint8_t *base = rt->base;

	for (uint32_t i = 0; i < L->ncpus; i++) {
		uint8_t *pc = base + L->percpu + i * L->stride;
		struct rt_cpu *c = &rt->cpu[i];
		struct mt_cpubuf *cb = &rt->cpubuf[i];
		struct mt_aggbuf *ab = &rt->aggbuf[i];

		c->buf = pc + L->pc_buf;
		c->aggdata = pc + L->pc_agg;
		c->agghash = (uint32_t *)(pc + L->pc_agghash);
		c->aggent = (uint32_t *)(pc + L->pc_aggent);
		c->ecbent = (struct rt_ecbent *)(pc + L->pc_ecbent);
		c->scratch = pc + L->pc_scratch;
		c->locals = pc + L->pc_locals;
		c->stage = pc + L->pc_stage;
		c->dyn_snap = (uint64_t *)(pc + L->pc_dynsnap);
		c->rand = 0x9e3779b97f4a7c15ull ^ ((uint64_t)i << 32) ^
			mt_plat_time();
		cb->size = L->bufsize;
		cb->data_off = (uint64_t)(c->buf - base);
		ab->size = L->aggsize;
		ab->data_off = (uint64_t)(c->aggdata - base);
		ab->hash_off = (uint64_t)((uint8_t *)c->agghash - base);
		ab->nbuckets = L->agg_nbuckets;
	}
}

int mt_rt_init(void *area, uint64_t size, const struct mt_image *img,
	       char *err, uint32_t errlen)
{
	struct rt_err e = { err, errlen, 0 };
	struct layout L;
	uint8_t *base = area;
	struct mt_cb *cb = area;
	struct rt *rt;
	const char *why;
	uint64_t need;

	if (err && errlen)
		err[0] = '\0';
	if (mt_rt_verify(img, err, errlen) != 0) {
		char why[160];
		uint32_t i;

		for (i = 0; err && i + 1 < sizeof(why) && err[i]; i++)
			why[i] = err[i];
		why[i] = '\0';
		e.pos = 0;
		rt_err_str(&e, "invalid enabling: ");
		rt_err_str(&e, why);
		return -1;
	}
	need = layout(img, &L);
	if (need && (why = fits(img, &L)) != 0) {
		rt_err_str(&e, why);
		return -1;
	}
	if (need == 0 || need > size) {
		rt_err_str(&e, "state area too small: need ");
		rt_err_num(&e, need);
		rt_err_str(&e, " bytes");
		return -1;
	}
	if ((const uint8_t *)img != base + L.image) {
		rt_memset(base, 0, L.image);
		rt_memcpy(base + L.image, img, img->size);
	} else {
		rt_memset(base, 0, L.image);
	}
	rt_memset(base + L.image + img->size, 0,
		  L.total - L.image - img->size);

	cb->magic = MT_CB_MAGIC;
	cb->version = MT_ABI_VERSION;
	cb->ncpus = L.ncpus;
	cb->image_off = L.image;
	cb->cpubuf_off = L.cpubuf;
	cb->cpustat_off = L.cpustat;
	cb->aggbuf_off = L.aggbuf;

	rt = rt_get(cb);
	rt->area_size = L.total;
	rt->base = base;
	setup_tables(rt, (const struct mt_image *)(base + L.image));
	rt->cpubuf = (void *)(base + L.cpubuf);
	rt->cpustat = (void *)(base + L.cpustat);
	rt->aggbuf = (void *)(base + L.aggbuf);
	rt->cpu = (void *)(base + L.cpus);
	for (int s = 0; s < 3; s++) {
		rt->slots[s] = (void *)(base + L.slots[s]);
		rt->nslots[s] = L.nslots[s];
	}
	rt->ncpus = L.ncpus;
	rt->strsize = L.strsize;
	rt->globals = base + L.globals;
	rt->globals_size = L.globals_size;
	rt->locals_size = L.locals_size;
	rt->scratchsize = L.scratchsize;
	rt->alloca_limit = L.alloca_limit;
	rt->stagesize = L.stagesize;
	rt->dyn = base + L.dyn;
	rt->dynhash = (uint32_t *)(base + L.dynhash);
	rt->dyn_nbuckets = L.dyn_nbuckets;
	rt->dyn_nchunks = L.dyn_nchunks;
	rt->dyn_chunksize = L.dyn_chunksize;
	rt->dyn_keycap = L.dyn_keycap;
	rt->tls = base + L.tls;
	rt->tls_nrows = L.tls_nrows;
	rt->tls_ncols = L.tls_ncols;
	rt->tls_stride = L.tls_stride;
	rt->specs = base + L.specs;
	rt->spec_stride = L.spec_stride;
	rt->nspec = L.nspec;
	rt->specdata = base + L.specdata;
	rt->specsize = L.specsize;
	assign_slots(rt, &L);
	setup_cpus(rt, &L);
	rt_dyn_init(rt);
	rt->end_reserve = rt->img->opt.bufpolicy == MT_BUFPOLICY_FILL ?
		end_bytes(rt->img) : 0;
	rt->error_probe = 0;
	for (uint32_t p = 0; p < rt->img->nprobes; p++)
		if (rt->img->error_probe && rt->t.probes[p].id == rt->img->error_probe)
			rt->error_probe = p + 1;
	__atomic_store_n(&cb->state, MT_CB_ACTIVE, __ATOMIC_RELEASE);
	return 0;
}

const struct rt_varslot *rt_slot(struct rt *rt, uint32_t scope, uint32_t id)
{
	const struct rt_varslot *sl;

	if (scope > MT_VS_LOCAL || id < MT_VAR_USER ||
	    id - MT_VAR_USER >= rt->nslots[scope])
		return 0;
	sl = &rt->slots[scope][id - MT_VAR_USER];
	return sl->var == RT_NOSLOT ? 0 : sl;
}

int mt_rt_probe_index(struct mt_cb *cb, uint32_t id)
{
	struct rt *rt = rt_get(cb);

	for (uint32_t p = 0; p < rt->img->nprobes; p++)
		if (rt->t.probes[p].id == id)
			return (int)p;
	return -1;
}

const struct mt_image *mt_rt_image(struct mt_cb *cb)
{
	return (const struct mt_image *)((uint8_t *)cb + cb->image_off);
}

uint32_t mt_rt_recsize(const struct mt_image *img, uint32_t epid)
{
	const struct mt_ecb *ecbs =
		(const void *)((const uint8_t *)img + img->ecbs_off);
	const struct mt_clause *cl =
		(const void *)((const uint8_t *)img + img->clauses_off);

	if (epid == 0)
		return 0;
	if (epid == MT_EPID_ERROR)
		return RT_ERRRECSIZE;
	if (epid > img->necbs)
		return 0;
	return RT_HDRSIZE + cl[ecbs[epid - 1].clause].recsize;
}
