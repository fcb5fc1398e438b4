/*
 * Hand-assembled enabling images for the runtime unit tests: a builder
 * that collects tables and writes an mt_image, and a harness that sets up
 * a state area, fires probes and walks the principal buffer.
 */
#ifndef RTIMG_H
#define RTIMG_H

#include <stdlib.h>
#include <string.h>
#include "machtrace/abi.h"
#include "machtrace/runtime.h"

struct ib {
	struct mt_probe probes[8];	uint32_t nprobes;
	struct mt_ecb ecbs[32];		uint32_t necbs;
	struct mt_clause clauses[32];	uint32_t nclauses;
	struct mt_action actions[64];	uint32_t nactions;
	struct mt_rec recs[64];		uint32_t nrecs;
	struct mt_agg aggs[8];		uint32_t naggs;
	struct mt_var vars[16];		uint32_t nvars;
	struct mt_difo difos[64];	uint32_t ndifos;
	mt_instr_t text[1024];		uint32_t ntext;
	uint64_t ints[64];		uint32_t nints;
	char strtab[2048];		uint32_t strtab_size;
	struct mt_options opt;
	uint32_t error_probe;
};

static inline uint32_t ib_str(struct ib *b, const char *s)
{
	uint32_t off = b->strtab_size;
	size_t n = strlen(s) + 1;

	for (uint32_t i = 0; i + n <= b->strtab_size; i++)
		if (memcmp(b->strtab + i, s, n) == 0)
			return i;
	memcpy(b->strtab + off, s, n);
	b->strtab_size += (uint32_t)n;
	return off;
}

static inline uint32_t ib_int(struct ib *b, uint64_t v)
{
	b->ints[b->nints] = v;
	return b->nints++;
}

/* Fresh builder with BEGIN (index 0), END (1), ERROR (2), tick (3). */
static inline void ib_init(struct ib *b)
{
	static const char *names[] = { "BEGIN", "END", "ERROR", "tick-1s" };
	static const uint32_t kinds[] = { MT_PK_BEGIN, MT_PK_END, MT_PK_ERROR,
					  MT_PK_TICK };

	memset(b, 0, sizeof(*b));
	ib_str(b, "");
	for (int i = 0; i < 4; i++) {
		struct mt_probe *p = &b->probes[b->nprobes++];
		p->id = (uint32_t)i + 1;
		p->prov = ib_str(b, i < 3 ? "dtrace" : "profile");
		p->mod = p->func = 0;
		p->name = ib_str(b, names[i]);
		p->kind = kinds[i];
		p->arg = i == 3 ? 1000000000ull : 0;
	}
	b->error_probe = 3;
	b->opt.bufsize = 4096;
	b->opt.aggsize = 4096;
	b->opt.dynvarsize = 4096;
	b->opt.specsize = 512;
	b->opt.scratchsize = 4096;
	b->opt.nspec = 1;
	b->opt.strsize = 32;
	b->opt.ncpus = 1;
}

/* A DIFO from n instructions; returns index + 1. */
static inline uint32_t ib_difo(struct ib *b, const mt_instr_t *in, uint32_t n,
			       uint32_t rtype)
{
	struct mt_difo *d = &b->difos[b->ndifos++];

	d->text0 = b->ntext;
	d->ntext = n;
	d->rtype = rtype;
	memcpy(b->text + b->ntext, in, n * sizeof(*in));
	b->ntext += n;
	return b->ndifos;
}
#define IB_DIFO(b, rt, ...) ({						\
	mt_instr_t _in[] = { __VA_ARGS__ };				\
	ib_difo(b, _in, sizeof(_in) / sizeof(_in[0]), rt); })

/* A clause bound to probe index pi; returns the clause index. */
static inline uint32_t ib_clause(struct ib *b, uint32_t pi, uint32_t pred,
				 uint32_t recsize)
{
	struct mt_clause *c = &b->clauses[b->nclauses];

	c->pred_difo = pred;
	c->act0 = b->nactions;
	c->nacts = 0;
	c->recsize = recsize;
	c->flags = MT_CF_NEEDS_RECORD;
	b->ecbs[b->necbs].probe = pi;
	b->ecbs[b->necbs].clause = b->nclauses;
	b->necbs++;
	return b->nclauses++;
}

/* Append an action with one rec to the last clause. */
static inline struct mt_action *ib_action(struct ib *b, uint16_t kind,
					  uint64_t arg)
{
	struct mt_action *a = &b->actions[b->nactions++];

	a->kind = kind;
	a->arg = arg;
	a->rec0 = b->nrecs;
	a->nrecs = 0;
	b->clauses[b->nclauses - 1].nacts++;
	return a;
}

static inline void ib_rec(struct ib *b, uint32_t difo, uint16_t kind,
			  uint32_t offset, uint32_t size, uint16_t flags)
{
	struct mt_rec *r = &b->recs[b->nrecs++];

	r->difo = difo;
	r->kind = kind;
	r->offset = offset;
	r->size = size;
	r->flags = flags;
	b->actions[b->nactions - 1].nrecs++;
}

/* Probe 0's two clauses of the variable tests: DIFO st run for its
   effect (stores), then a 16-byte record tracing DIFOs a and c (what the
   stores left). */
static inline void ib_store_then_trace2(struct ib *b, uint32_t st, uint32_t a, uint32_t c)
{
	ib_clause(b, 0, 0, 0);
	b->clauses[b->nclauses - 1].flags = 0;
	ib_action(b, MT_ACT_DIFEXPR, 0);
	ib_rec(b, st, MT_REC_INT, 0, 0, 0);
	ib_clause(b, 0, 0, 16);
	ib_action(b, MT_ACT_TRACE, 0);
	ib_rec(b, a, MT_REC_INT, 0, 8, 0);
	ib_action(b, MT_ACT_TRACE, 0);
	ib_rec(b, c, MT_REC_INT, 8, 8, 0);
}

static inline uint32_t ib_var(struct ib *b, uint8_t scope, uint8_t kind,
			      uint32_t flags, uint32_t size, uint32_t keysize)
{
	struct mt_var *v = &b->vars[b->nvars];
	uint32_t id = MT_VAR_USER;

	for (uint32_t i = 0; i < b->nvars; i++)
		if (b->vars[i].scope == scope && b->vars[i].id >= id)
			id = b->vars[i].id + 1u;
	v->id = (uint16_t)id;
	v->scope = scope;
	v->kind = kind;
	v->flags = flags;
	v->size = size;
	v->keysize = keysize;
	b->nvars++;
	return id;
}

static inline uint32_t ib_agg(struct ib *b, uint32_t func, uint32_t nkeys,
			      uint32_t keysize, uint32_t nvals, int64_t p0,
			      int64_t p1, int64_t p2, int64_t p3)
{
	struct mt_agg *a = &b->aggs[b->naggs++];

	a->func = func;
	a->nkeys = nkeys;
	a->keysize = keysize;
	a->nvals = nvals;
	a->param[0] = p0;
	a->param[1] = p1;
	a->param[2] = p2;
	a->param[3] = p3;
	return b->naggs;
}

/* Write the image (malloc'd). */
static inline struct mt_image *ib_build(struct ib *b)
{
	uint32_t off = sizeof(struct mt_image), size;
	struct mt_image *img;
	uint8_t *p;

	/* Link probe ECB ranges: ECBs are grouped per probe in order. */
	struct mt_ecb sorted[32];
	uint32_t n = 0, clause_of[32];
	(void)clause_of;
	for (uint32_t pi = 0; pi < b->nprobes; pi++) {
		b->probes[pi].ecb0 = n;
		b->probes[pi].necbs = 0;
		for (uint32_t e = 0; e < b->necbs; e++)
			if (b->ecbs[e].probe == pi) {
				sorted[n++] = b->ecbs[e];
				b->probes[pi].necbs++;
			}
	}
	memcpy(b->ecbs, sorted, n * sizeof(sorted[0]));

#define SZ(t, c) ((uint32_t)(sizeof(t) * (c) + 7) & ~7u)
	size = off + SZ(struct mt_probe, b->nprobes) + SZ(struct mt_ecb, b->necbs) +
		SZ(struct mt_clause, b->nclauses) +
		SZ(struct mt_action, b->nactions) + SZ(struct mt_rec, b->nrecs) +
		SZ(struct mt_agg, b->naggs) + SZ(struct mt_var, b->nvars) +
		SZ(struct mt_difo, b->ndifos) + SZ(mt_instr_t, b->ntext) +
		SZ(uint64_t, b->nints) + SZ(char, b->strtab_size);
	img = calloc(1, size);
	p = (uint8_t *)img;
	img->magic = MT_IMAGE_MAGIC;
	img->version = MT_ABI_VERSION;
	img->size = size;
#define PUT(field_n, field_off, arr, t, c) do {				\
	img->field_n = (c); img->field_off = off;			\
	memcpy(p + off, arr, sizeof(t) * (c)); off += SZ(t, c); } while (0)
	PUT(nprobes, probes_off, b->probes, struct mt_probe, b->nprobes);
	PUT(necbs, ecbs_off, b->ecbs, struct mt_ecb, b->necbs);
	PUT(nclauses, clauses_off, b->clauses, struct mt_clause, b->nclauses);
	PUT(nactions, actions_off, b->actions, struct mt_action, b->nactions);
	PUT(nrecs, recs_off, b->recs, struct mt_rec, b->nrecs);
	PUT(naggs, aggs_off, b->aggs, struct mt_agg, b->naggs);
	PUT(nvars, vars_off, b->vars, struct mt_var, b->nvars);
	PUT(ndifos, difos_off, b->difos, struct mt_difo, b->ndifos);
	PUT(ntext, text_off, b->text, mt_instr_t, b->ntext);
	PUT(nints, ints_off, b->ints, uint64_t, b->nints);
	PUT(strtab_size, strtab_off, b->strtab, char, b->strtab_size);
#undef PUT
#undef SZ
	img->opt = b->opt;
	img->error_probe = b->error_probe;
	return img;
}

/* ------------------------------------------------------------------ */
struct rtrun {
	struct mt_image *img;
	void *area;
	struct mt_cb *cb;
	char err[256];
};

static inline int rt_start(struct rtrun *r, struct ib *b)
{
	uint64_t size;

	r->img = ib_build(b);
	size = mt_rt_size(r->img);
	r->area = aligned_alloc(64, (size + 63) & ~63ull);
	r->cb = r->area;
	return mt_rt_init(r->area, size, r->img, r->err, sizeof(r->err));
}

static inline void rt_stop(struct rtrun *r)
{
	free(r->area);
	free(r->img);
}

static inline void rt_fire(struct rtrun *r, uint32_t pi, uint64_t arg0)
{
	struct mt_pctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.arg[0] = arg0;
	mt_rt_probe(r->cb, pi, &ctx);
}

static inline struct mt_cpubuf *rt_buf(struct rtrun *r)
{
	return (struct mt_cpubuf *)((uint8_t *)r->cb + r->cb->cpubuf_off);
}

static inline struct mt_cpustat *rt_stat(struct rtrun *r)
{
	return (struct mt_cpustat *)((uint8_t *)r->cb + r->cb->cpustat_off);
}

/* The n-th record (0-based) in [tail, head), or NULL. */
static inline struct mt_rechdr *rt_rec(struct rtrun *r, int n)
{
	struct mt_cpubuf *b = rt_buf(r);
	const struct mt_image *img = mt_rt_image(r->cb);
	uint8_t *data = (uint8_t *)r->cb + b->data_off;
	uint64_t pos = b->tail;

	while (pos < b->head) {
		struct mt_rechdr *h = (void *)(data + pos % b->size);
		uint32_t sz;
		if (h->epid == 0) {
			pos += b->size - pos % b->size;
			continue;
		}
		if (n-- == 0)
			return h;
		sz = mt_rt_recsize(img, h->epid);
		if (!sz)
			return NULL;
		pos += sz;
	}
	return NULL;
}

static inline int rt_nrecs(struct rtrun *r)
{
	int n = 0;

	while (rt_rec(r, n))
		n++;
	return n;
}

static inline void *rt_data(struct mt_rechdr *h)
{
	return h + 1;
}

/* Value array of the agg entry with the given key (after the aggid). */
static inline int64_t *rt_aggvals(struct rtrun *r, uint32_t aggid,
				  const void *key, uint32_t keylen)
{
	struct mt_aggbuf *ab = (void *)((uint8_t *)r->cb + r->cb->aggbuf_off);
	const struct mt_image *img = mt_rt_image(r->cb);
	const struct mt_agg *aggs = (const void *)((const uint8_t *)img +
						   img->aggs_off);
	uint8_t *data = (uint8_t *)r->cb + ab->data_off;

	for (uint64_t o = 0; o < ab->used;) {
		struct mt_aggent *e = (void *)(data + o);
		const struct mt_agg *a = &aggs[e->aggid - 1];
		uint8_t *k = (uint8_t *)(e + 1);
		if (e->aggid == aggid &&
		    (keylen == 0 || memcmp(k + 8, key, keylen) == 0))
			return (int64_t *)(k + a->keysize);
		o += sizeof(*e) + a->keysize + 8 * a->nvals;
	}
	return NULL;
}

#define R(op, r1, r2, rd)	MT_INSTR(MT_OP_##op, r1, r2, rd)
#define RV(op, v, rd)		MT_INSTR_V16(MT_OP_##op, v, rd)
#define RB(op, l)		MT_INSTR_BR(MT_OP_##op, l)

#endif
