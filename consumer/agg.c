/*
 * Aggregations on the consumer side: snapshot of the runtime's per-CPU
 * aggregation buffers merged into one table, dtrace's sort orders
 * (value then key; aggsortkey, aggsortrev, aggsortpos, aggsortkeypos),
 * printa() (default and formatted, one or several aggregations joined
 * on their keys), clear/trunc/normalize bookkeeping.
 */
#include <stdlib.h>
#include <string.h>
#include "impl.h"

static const struct mt_agg *
agg_of(const struct mt_consumer *c, uint32_t aggid)
{
	return aggid >= 1 && aggid <= c->prog->naggs ?
		&c->prog->aggs[aggid - 1] : NULL;
}

static const struct mt_agg_info *
info_of(const struct mt_consumer *c, uint32_t aggid)
{
	return c->prog->agg_info ? &c->prog->agg_info[aggid - 1] : NULL;
}

static uint32_t
keybytes(const struct mt_consumer *c, uint32_t aggid)
{
	const struct mt_agg *a = agg_of(c, aggid);

	return a && a->keysize > 8 ? a->keysize - 8 : 0;
}

/* Size of one key element as the runtime lays it out (abi.h). */
static uint32_t
key_elem_size(const struct mt_consumer *c, const struct mt_rec_info *ri)
{
	switch (ri->kind) {
	case MT_TI_INT: case MT_TI_UINT: case MT_TI_SYM: case MT_TI_MOD:
	case MT_TI_UADDR:
		return 8;
	case MT_TI_USYM: case MT_TI_UMOD:
		return ri->size > 8 ? ri->size : 8;
	case MT_TI_STR:
		return c->img ? c->img->opt.strsize : ri->size;
	default:
		return ri->size;
	}
}

/* The first AGG action updating aggid: its recs give the key layout. */
static const struct mt_action *
agg_action(const struct mt_consumer *c, uint32_t aggid)
{
	for (uint32_t i = 0; i < c->prog->nactions; i++)
		if (c->prog->actions[i].kind == MT_ACT_AGG &&
		    c->prog->actions[i].arg == aggid)
			return &c->prog->actions[i];
	return NULL;
}

int
agg_setup(struct mt_consumer *c)
{
	uint32_t n = c->prog->naggs;

	c->normal = calloc(n + 1, sizeof(*c->normal));
	c->printed = calloc(n + 1, 1);
	c->keyoff = calloc(n + 1, sizeof(*c->keyoff));
	c->nahash = 1024;
	c->ahash = calloc(c->nahash, sizeof(*c->ahash));
	if (!c->normal || !c->printed || !c->keyoff || !c->ahash)
		return -1;
	for (uint32_t i = 1; i <= n; i++) {
		const struct mt_agg_info *ai = info_of(c, i);
		uint32_t nk = ai ? ai->nkeys : 0, off = 0;

		const struct mt_action *act = agg_action(c, i);

		c->normal[i] = 1;
		c->keyoff[i] = calloc(nk + 1, sizeof(uint32_t));
		if (c->keyoff[i] == NULL)
			return -1;
		for (uint32_t k = 0; k < nk; k++) {
			const struct mt_rec *r = act && k < act->nrecs ?
				&c->prog->recs[act->rec0 + k] : NULL;

			c->keyoff[i][k] = off;
			if (r && !(r->flags & MT_RF_AGGVAL))
				off += r->kind == MT_REC_INT ? 8 : r->size;
			else
				off += key_elem_size(c, &ai->keys[k]);
		}
		c->keyoff[i][nk] = off;
	}
	return 0;
}

void
agg_free(struct mt_consumer *c)
{
	for (size_t i = 0; i < c->nents; i++) {
		free(c->ents[i]->key);
		free(c->ents[i]->vals);
		free(c->ents[i]->base);
		free(c->ents[i]);
	}
	free(c->ents);
	free(c->ahash);
	if (c->keyoff)
		for (uint32_t i = 0; i <= c->prog->naggs; i++)
			free(c->keyoff[i]);
	free(c->keyoff);
	free(c->normal);
	free(c->printed);
}

static uint32_t
hash_key(uint32_t aggid, const uint8_t *key, uint32_t n)
{
	uint32_t h = 2166136261u ^ aggid;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ key[i]) * 16777619u;
	return h;
}

static void
vals_init(const struct mt_agg *a, int64_t *v)
{
	memset(v, 0, a->nvals * sizeof(int64_t));
	if (a->func == MT_AGG_MIN)
		v[0] = INT64_MAX;
	else if (a->func == MT_AGG_MAX)
		v[0] = INT64_MIN;
}

static void
vals_merge(const struct mt_agg *a, int64_t *dst, const int64_t *src)
{
	switch (a->func) {
	case MT_AGG_MIN:
		if (src[0] < dst[0])
			dst[0] = src[0];
		break;
	case MT_AGG_MAX:
		if (src[0] > dst[0])
			dst[0] = src[0];
		break;
	case MT_AGG_STDDEV: {
		uint64_t lo = (uint64_t)dst[2] + (uint64_t)src[2];

		dst[3] = (int64_t)((uint64_t)dst[3] + (uint64_t)src[3] +
				   (lo < (uint64_t)dst[2]));
		dst[2] = (int64_t)lo;
		dst[0] += src[0];
		dst[1] += src[1];
		break;
	}
	default:
		for (uint32_t i = 0; i < a->nvals; i++)
			dst[i] += src[i];
		break;
	}
}

static struct agg_ent *
ent_find(struct mt_consumer *c, uint32_t aggid, const uint8_t *key)
{
	uint32_t n = keybytes(c, aggid), h = hash_key(aggid, key, n);

	for (struct agg_ent *e = c->ahash[h % c->nahash]; e; e = e->next)
		if (e->hash == h && e->aggid == aggid &&
		    memcmp(e->key, key, n) == 0)
			return e;
	return NULL;
}

int
agg_add(struct mt_consumer *c, uint32_t aggid, const uint8_t *key,
	const int64_t *vals)
{
	const struct mt_agg *a = agg_of(c, aggid);
	uint32_t n = keybytes(c, aggid);
	struct agg_ent *e;

	if (a == NULL)
		return -1;
	e = ent_find(c, aggid, key);
	if (e == NULL) {
		if (c->nents == c->capents) {
			size_t cap = c->capents ? c->capents * 2 : 64;
			struct agg_ent **v = realloc(c->ents, cap * sizeof(*v));

			if (v == NULL)
				return -1;
			c->ents = v;
			c->capents = cap;
		}
		e = calloc(1, sizeof(*e));
		if (e == NULL)
			return -1;
		e->aggid = aggid;
		e->hash = hash_key(aggid, key, n);
		e->key = malloc(n ? n : 1);
		e->vals = malloc(a->nvals * sizeof(int64_t));
		if (!e->key || !e->vals)
			return -1;
		memcpy(e->key, key, n);
		vals_init(a, e->vals);
		e->next = c->ahash[e->hash % c->nahash];
		c->ahash[e->hash % c->nahash] = e;
		c->ents[c->nents++] = e;
	} else if (!e->seen) {
		vals_init(a, e->vals);
	}
	e->seen = 1;
	vals_merge(a, e->vals, vals);
	return 0;
}

void
agg_begin_snapshot(struct mt_consumer *c)
{
	for (size_t i = 0; i < c->nents; i++)
		c->ents[i]->seen = 0;
}

static void
ent_unlink(struct mt_consumer *c, struct agg_ent *e)
{
	struct agg_ent **pp = &c->ahash[e->hash % c->nahash];

	while (*pp && *pp != e)
		pp = &(*pp)->next;
	if (*pp)
		*pp = e->next;
	free(e->key);
	free(e->vals);
	free(e->base);
	free(e);
}

/* Drop entries the runtime no longer has; apply trunc baselines. */
void
agg_end_snapshot(struct mt_consumer *c)
{
	size_t j = 0;

	for (size_t i = 0; i < c->nents; i++) {
		struct agg_ent *e = c->ents[i];
		const struct mt_agg *a = agg_of(c, e->aggid);

		if (!e->seen) {
			ent_unlink(c, e);
			continue;
		}
		if (e->base != NULL) {
			if (memcmp(e->base, e->vals, a->nvals * 8) == 0) {
				e->hidden = 1;
			} else {
				e->hidden = 0;
				if (a->func != MT_AGG_MIN && a->func != MT_AGG_MAX)
					for (uint32_t k = 0; k < a->nvals; k++)
						e->vals[k] -= e->base[k];
			}
		}
		c->ents[j++] = e;
	}
	c->nents = j;
}

int
agg_snapshot(struct mt_consumer *c)
{
	struct mt_cb *cb = c->cb;
	const struct mt_aggbuf *ab;

	if (cb == NULL || cb->aggbuf_off == 0)
		return 0;
	agg_begin_snapshot(c);
	ab = (const struct mt_aggbuf *)((const char *)cb + cb->aggbuf_off);
	for (uint32_t cpu = 0; cpu < cb->ncpus; cpu++) {
		const uint8_t *base = (const uint8_t *)cb + ab[cpu].data_off;
		uint64_t off = 0, used = ab[cpu].used;

		while (off + sizeof(struct mt_aggent) <= used) {
			const struct mt_aggent *ae = (const void *)(base + off);
			const struct mt_agg *a = agg_of(c, ae->aggid);
			const uint8_t *key;

			if (a == NULL)
				break;
			key = base + off + sizeof(*ae);
			if (agg_add(c, ae->aggid, key + 8,
				    (const int64_t *)(key + a->keysize)) != 0)
				return -1;
			off += sizeof(*ae) + a->keysize + 8ULL * a->nvals;
		}
	}
	agg_end_snapshot(c);
	return 0;
}

/* ---- sorting ---------------------------------------------------------- */

struct sortctx {
	struct mt_consumer *c;
	int keypos;
	int keysort;
	int naggs;			/* values per bundle */
	int sortpos;
};

/* A printa() row: one key and the values of each listed aggregation. */
struct bundle {
	const struct agg_ent *rep;	/* supplies the key */
	const struct agg_ent **ent;	/* [naggs], NULL = no entry (zero) */
};

static int
cmp3(long double a, long double b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

static long double
dist_sum(const struct mt_agg *a, const int64_t *v, int64_t *zero)
{
	long double t = 0;

	*zero = 0;
	if (a->func == MT_AGG_QUANTIZE) {
		for (int i = 0; i < MT_QUANTIZE_NBUCKETS; i++) {
			int64_t bv = i < MT_QUANTIZE_ZERO ?
				-(int64_t)(1ULL << (MT_QUANTIZE_ZERO - 1 - i)) :
				i == MT_QUANTIZE_ZERO ? 0 :
				(int64_t)(1ULL << (i - MT_QUANTIZE_ZERO - 1));
			if (bv == 0)
				*zero = v[i];
			t += (long double)bv * v[i];
		}
	} else if (a->func == MT_AGG_LQUANTIZE) {
		int64_t base = a->param[0], step = a->param[2];
		int levels = (int)a->nvals - 2;

		t += (long double)v[0] * (base - 1);
		if (base - 1 == 0)
			*zero = v[0];
		for (int i = 0; i < levels; i++) {
			int64_t bv = base + i * step;
			if (bv == 0)
				*zero = v[i + 1];
			t += (long double)v[i + 1] * bv;
		}
		t += (long double)v[levels + 1] * (base + levels * step);
	} else {
		/* llquantize: order by bucket position weighted by count */
		for (uint32_t i = 0; i < a->nvals; i++)
			t += (long double)v[i] * ((long double)i - a->nvals / 2);
	}
	return t;
}

static int
valcmp(const struct mt_agg *a, const int64_t *l, const int64_t *r)
{
	long double lt, rt;
	int64_t lz, rz;
	int rv;

	switch (a->func) {
	case MT_AGG_AVG:
		lt = l[0] ? (long double)l[1] / l[0] : 0;
		rt = r[0] ? (long double)r[1] / r[0] : 0;
		return cmp3(lt, rt);
	case MT_AGG_STDDEV:
		return cmp3(mt_stddev(l, 1), mt_stddev(r, 1));
	case MT_AGG_QUANTIZE:
	case MT_AGG_LQUANTIZE:
	case MT_AGG_LLQUANTIZE:
		lt = dist_sum(a, l, &lz);
		rt = dist_sum(a, r, &rz);
		if ((rv = cmp3(lt, rt)) != 0)
			return rv;
		return lz < rz ? -1 : lz > rz ? 1 : 0;
	default:
		return l[0] < r[0] ? -1 : l[0] > r[0] ? 1 : 0;
	}
}

static uint64_t
key_uint(const uint8_t *p, uint32_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, size < 8 ? size : 8);
	return v;
}

static int
keycmp(const struct sortctx *s, const struct agg_ent *l,
       const struct agg_ent *r)
{
	const struct mt_agg_info *ai = info_of(s->c, l->aggid);
	const struct mt_agg_info *bi = info_of(s->c, r->aggid);
	int nk = ai ? (int)ai->nkeys : 0, keypos;

	if (!bi || (int)bi->nkeys != nk)
		return nk < (bi ? (int)bi->nkeys : 0) ? -1 : 1;
	keypos = s->keypos + 1 >= nk + 1 ? 0 : s->keypos;
	for (int j = 0; j < nk; j++) {
		int i = (j + keypos) % nk;
		const struct mt_rec_info *ri = &ai->keys[i];
		const uint8_t *ld = l->key + s->c->keyoff[l->aggid][i];
		const uint8_t *rd = r->key + s->c->keyoff[r->aggid][i];
		uint32_t sz = s->c->keyoff[l->aggid][i + 1] -
			      s->c->keyoff[l->aggid][i];

		if (ri->kind == MT_TI_INT || ri->kind == MT_TI_UINT) {
			uint64_t lv = key_uint(ld, ri->size);
			uint64_t rv = key_uint(rd, ri->size);

			if (lv != rv)
				return lv < rv ? -1 : 1;
			continue;
		}
		int rv = memcmp(ld, rd, sz);
		if (rv != 0)
			return rv < 0 ? -1 : 1;
	}
	return 0;
}

static const int64_t *
bundle_vals(const struct sortctx *s, const struct bundle *b, int i,
	    const struct mt_agg **ap)
{
	static int64_t zero[1024];
	const struct agg_ent *e = b->ent[i];

	*ap = e ? agg_of(s->c, e->aggid) : NULL;
	return e ? e->vals : zero;
}

static int
bundlecmp(const void *lp, const void *rp, void *arg)
{
	const struct sortctx *s = arg;
	const struct bundle *l = lp, *r = rp;
	int rv = 0;

	if (s->keysort)
		rv = keycmp(s, l->rep, r->rep);
	for (int j = 0; rv == 0 && j < s->naggs; j++) {
		int i = (j + s->sortpos) % s->naggs;
		const struct mt_agg *la, *ra;
		const int64_t *lv = bundle_vals(s, l, i, &la);
		const int64_t *rvv = bundle_vals(s, r, i, &ra);
		const struct mt_agg *a = la ? la : ra;

		if (a == NULL)
			continue;
		if (!la || !ra) {
			/* a missing entry compares as zero */
			int64_t z[1024];
			vals_init(a, z);
			memset(z, 0, a->nvals * 8);
			rv = valcmp(a, la ? lv : z, ra ? rvv : z);
		} else {
			rv = valcmp(a, lv, rvv);
		}
	}
	if (rv == 0 && !s->keysort)
		rv = keycmp(s, l->rep, r->rep);
	if (s->c->opts->aggsortrev)
		rv = -rv;
	return rv;
}

static int
same_key(struct mt_consumer *c, const struct agg_ent *a,
	 const struct agg_ent *b)
{
	uint32_t na = keybytes(c, a->aggid), nb = keybytes(c, b->aggid);

	return na == nb && memcmp(a->key, b->key, na) == 0;
}

/* Build and sort the rows for printa() of aggids[0..n). */
static struct bundle *
make_bundles(struct mt_consumer *c, const uint32_t *aggids, int n,
	     size_t *nbp)
{
	struct bundle *b = NULL;
	size_t nb = 0;
	struct sortctx s = { c, 0, 0, n, 0 };

	for (size_t i = 0; i < c->nents; i++) {
		struct agg_ent *e = c->ents[i];
		size_t k;
		int pos = -1;

		if (e->hidden)
			continue;
		for (int j = 0; j < n; j++)
			if (aggids[j] == e->aggid && pos < 0)
				pos = j;
		if (pos < 0)
			continue;
		for (k = 0; k < nb; k++)
			if (same_key(c, b[k].rep, e))
				break;
		if (k == nb) {
			struct bundle *nbv = realloc(b, (nb + 1) * sizeof(*b));
			if (nbv == NULL)
				break;
			b = nbv;
			b[nb].rep = e;
			b[nb].ent = calloc(n, sizeof(*b[nb].ent));
			nb++;
		}
		for (int j = 0; j < n; j++)
			if (aggids[j] == e->aggid && b[k].ent)
				b[k].ent[j] = e;
	}
	s.keysort = c->opts->aggsortkey;
	s.keypos = c->opts->aggsortkeypos ? (int)c->opts->aggsortkeypos : 0;
	s.sortpos = n > 1 && c->opts->aggsortpos &&
		    (int)c->opts->aggsortpos < n ? (int)c->opts->aggsortpos : 0;
	if (nb > 1)
		qsort_r(b, nb, sizeof(*b), bundlecmp, &s);
	*nbp = nb;
	return b;
}

static void
free_bundles(struct bundle *b, size_t nb)
{
	for (size_t i = 0; i < nb; i++)
		free(b[i].ent);
	free(b);
}

static void
zero_vals(const struct mt_agg *a, int64_t *z)
{
	memset(z, 0, a->nvals * 8);
}

static void
print_row_default(struct mt_consumer *c, FILE *fp, const struct bundle *b,
		  const uint32_t *aggids, int n)
{
	const struct agg_ent *rep = b->rep;
	const struct mt_agg_info *ai = info_of(c, rep->aggid);
	int64_t z[1024];

	for (uint32_t k = 0; ai && k < ai->nkeys; k++)
		print_key_datum(c, fp, &ai->keys[k],
				rep->key + c->keyoff[rep->aggid][k]);
	for (int j = 0; j < n; j++) {
		const struct mt_agg *a = agg_of(c, aggids[j]);
		const int64_t *v = b->ent[j] ? b->ent[j]->vals : z;

		if (a == NULL)
			continue;
		if (!b->ent[j])
			zero_vals(a, z);
		mt_print_aggval(fp, a, v, c->normal[aggids[j]]);
	}
	fputc('\n', fp);
}

static void
print_row_fmt(struct mt_consumer *c, FILE *fp, const char *fmt,
	      const struct bundle *b, const uint32_t *aggids, int n)
{
	const struct agg_ent *rep = b->rep;
	const struct mt_agg_info *ai = info_of(c, rep->aggid);
	uint32_t nk = ai ? ai->nkeys : 0;
	struct mt_pfarg *args = calloc(nk + n + 1, sizeof(*args));
	int64_t z[1024];
	char err[128];

	if (args == NULL)
		return;
	for (uint32_t k = 0; k < nk; k++) {
		args[k].kind = ai->keys[k].kind;
		args[k].size = ai->keys[k].kind == MT_TI_INT ||
			       ai->keys[k].kind == MT_TI_UINT ?
			       ai->keys[k].size : c->keyoff[rep->aggid][k + 1] -
			       c->keyoff[rep->aggid][k];
		args[k].data = rep->key + c->keyoff[rep->aggid][k];
	}
	memset(z, 0, sizeof(z));
	for (int j = 0; j < n; j++) {
		const struct mt_agg *a = agg_of(c, aggids[j]);

		args[nk + j].agg = a;
		args[nk + j].aggvals = b->ent[j] ? b->ent[j]->vals : z;
		args[nk + j].normal = c->normal[aggids[j]];
	}
	mt_printf(fp, fmt, args, (int)nk + n, err, sizeof(err));
	free(args);
}

int
agg_printa(struct mt_consumer *c, FILE *fp, const char *fmt,
	   const uint32_t *aggids, int n)
{
	size_t nb;
	struct bundle *b;

	if (n <= 0)
		return 0;
	b = make_bundles(c, aggids, n, &nb);
	if (fmt == NULL)
		fputc('\n', fp);
	for (size_t i = 0; i < nb; i++) {
		if (fmt)
			print_row_fmt(c, fp, fmt, &b[i], aggids, n);
		else
			print_row_default(c, fp, &b[i], aggids, n);
	}
	if (nb > 0)
		for (int j = 0; j < n; j++)
			if (aggids[j] <= c->prog->naggs)
				c->printed[aggids[j]] = 1;
	free_bundles(b, nb);
	return 0;
}

int
agg_print_all(struct mt_consumer *c, FILE *fp)
{
	for (uint32_t id = 1; id <= c->prog->naggs; id++) {
		struct bundle *b;
		size_t nb;

		if (c->printed[id])
			continue;
		b = make_bundles(c, &id, 1, &nb);
		for (size_t i = 0; i < nb; i++)
			print_row_default(c, fp, &b[i], &id, 1);
		free_bundles(b, nb);
	}
	return 0;
}

void
agg_clear(struct mt_consumer *c, uint32_t aggid)
{
	const struct mt_agg *a = agg_of(c, aggid);

	if (a == NULL)
		return;
	if (c->target && c->target->ops->aggclear)
		c->target->ops->aggclear(c->target, aggid, 0);
	for (size_t i = 0; i < c->nents; i++) {
		struct agg_ent *e = c->ents[i];

		if (e->aggid != aggid)
			continue;
		vals_init(a, e->vals);
		if (a->func == MT_AGG_MIN || a->func == MT_AGG_MAX)
			e->vals[0] = 0;
		free(e->base);
		e->base = NULL;
	}
}

/*
 * trunc(@) removes every entry (the runtime is asked to drop them);
 * trunc(@, n) keeps the n largest (n < 0: the -n smallest).
 */
void
agg_trunc(struct mt_consumer *c, uint32_t aggid, int64_t keep, int all)
{
	const struct mt_agg *a = agg_of(c, aggid);
	struct sortctx s = { c, 0, 0, 1, 0 };
	struct bundle *b;
	size_t nb;

	if (a == NULL)
		return;
	if (all && c->target && c->target->ops->aggclear)
		c->target->ops->aggclear(c->target, aggid, 1);
	b = make_bundles(c, &aggid, 1, &nb);
	if (!all && nb > 1) {
		/* sort by value, largest first for keep > 0 */
		int rev = c->opts->aggsortrev, ks = c->opts->aggsortkey;

		c->opts->aggsortrev = keep > 0;
		c->opts->aggsortkey = 0;
		qsort_r(b, nb, sizeof(*b), bundlecmp, &s);
		c->opts->aggsortrev = rev;
		c->opts->aggsortkey = ks;
	}
	if (keep < 0)
		keep = -keep;
	for (size_t i = all ? 0 : (size_t)keep; i < nb; i++) {
		struct agg_ent *e = (struct agg_ent *)b[i].rep;

		int64_t *raw = malloc(a->nvals * 8);

		if (raw == NULL)
			continue;
		memcpy(raw, e->vals, a->nvals * 8);
		if (e->base && a->func != MT_AGG_MIN && a->func != MT_AGG_MAX)
			for (uint32_t k = 0; k < a->nvals; k++)
				raw[k] += e->base[k];
		free(e->base);
		e->base = raw;
		e->hidden = 1;
	}
	free_bundles(b, nb);
}
