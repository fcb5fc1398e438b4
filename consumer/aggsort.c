/*
 * dtrace's aggregation sort orders: by value then key by default, by key
 * with aggsortkey (key elements from aggsortkeypos on), reversed with
 * aggsortrev; several aggregations joined on their keys for printa(),
 * compared from aggsortpos on.  Values compare as dtrace does: counts and
 * sums as integers, averages and standard deviations by their results,
 * distributions by their weighted sums then their zero buckets.  Keys
 * compare as unsigned integers of their size, other elements bytewise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"
#include "machtrace/quantize.h"

static int
cmp3(long double a, long double b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

/* dt_aggregate_llquantizedsum for the dtrace-utils layout. */
static long double
llq_sum(const struct mt_agg *a, const int64_t *v, int64_t *zero)
{
	int factor = (int)a->param[0], lmag = (int)a->param[1];
	int hmag = (int)a->param[2], steps = (int)a->param[3];
	int sf = steps / factor, bin0 = 1 + (hmag - lmag + 1) * (steps - sf);
	int i = 1, step, mag;
	long double total, scale;

	if ((int)a->nvals != (hmag - lmag + 1) * (steps - sf) * 2 + 3) {
		/* illumos layout: buckets in increasing order */
		total = 0;
		*zero = v[0];
		for (uint32_t k = 0; k < a->nvals; k++)
			total += (long double)v[k] * k;
		return total;
	}
	*zero = v[bin0];
	total = powl(factor, lmag) * (long double)(v[bin0 + 1] - v[bin0 - 1]);
	if (lmag == 0 && steps > factor) {
		for (step = 2; step <= factor; step++) {
			i += sf;
			total += step * (long double)(v[bin0 + i] - v[bin0 - i]);
		}
		lmag = 1;
	}
	scale = powl(factor, lmag + 1) / steps;
	for (mag = lmag; mag <= hmag; mag++) {
		for (step = sf + 1; step <= steps; step++) {
			i++;
			total += step * scale *
				 (long double)(v[bin0 + i] - v[bin0 - i]);
		}
		scale *= factor;
	}
	return total;
}

/*
 * A distribution's weighted sum (bucket value times count) and its count
 * at zero: dtrace orders distributions by the first, then the second.
 */
static long double
dist_sum(const struct mt_agg *a, const int64_t *v, int64_t *zero)
{
	long double t = 0;

	*zero = 0;
	if (a->func == MT_AGG_QUANTIZE) {
		for (int i = 0; i < MT_QUANTIZE_NBUCKETS; i++) {
			int64_t bv = mt_quantize_value(i);
			if (bv == 0)
				*zero = v[i];
			t += (long double)bv * v[i];
		}
	} else if (a->func == MT_AGG_LQUANTIZE) {
		int64_t base = a->param[0], step = a->param[2];
		int levels = (int)a->nvals - 2, found = 0;

		t = (long double)v[0] * (base - 1);
		if (base - 1 == 0) {
			*zero = v[0];
			found = 1;
		}
		for (int i = 0; i < levels; base += step, i++) {
			if (base == 0 && !found) {
				*zero = v[i + 1];
				found = 1;
			}
			t += (long double)v[i + 1] * base;
		}
		t += (long double)v[levels + 1] * (base + 1);
		if (base + 1 == 0 && !found)
			*zero = v[levels + 1];
	} else {
		t = llq_sum(a, v, zero);
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
		/* integer averages, as dtrace compares them */
		lt = l[0] ? l[1] / l[0] : 0;
		rt = r[0] ? r[1] / r[0] : 0;
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
	const struct agg_ent *e = b->ent[i];

	*ap = e ? agg_of(s->c, e->aggid) : NULL;
	return e ? e->vals : s->c->zeros;
}

int
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
			rv = valcmp(a, la ? lv : s->c->zeros,
				    ra ? rvv : s->c->zeros);
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

struct row_key {
	struct mt_consumer *c;
	const struct bundle *b;
	const struct agg_ent *e;
};

static int
row_eq(const void *ctx, uintptr_t val)
{
	const struct row_key *k = ctx;

	return same_key(k->c, k->b[val - 1].rep, k->e);
}

/*
 * Build and sort the rows for printa() of aggids[0..n): one row per
 * distinct key, holding each aggregation's entry for it (or none).
 */
struct bundle *
make_bundles(struct mt_consumer *c, const uint32_t *aggids, int n,
	     size_t *nbp)
{
	size_t nb = 0;
	struct bundle *b = calloc(c->nents + 1, sizeof(*b));
	struct mt_hmap rows = { 0 };	/* row index + 1 by key */
	struct sortctx s = { c, 0, 0, n, 0 };

	if (b == NULL) {
		*nbp = 0;
		return NULL;
	}
	for (size_t i = 0; i < c->nents; i++) {
		struct agg_ent *e = c->ents[i];
		struct row_key rk = { c, b, e };
		uint64_t h;
		size_t k;
		int pos = -1;

		if (e->hidden)
			continue;
		for (int j = 0; j < n && pos < 0; j++)
			if (aggids[j] == e->aggid)
				pos = j;
		if (pos < 0)
			continue;
		h = hash_key(0, e->key, keybytes(c, e->aggid));
		k = mt_hmap_find(&rows, h, row_eq, &rk);
		if (k-- == 0) {
			b[nb].rep = e;
			b[nb].ent = calloc(n, sizeof(*b[nb].ent));
			k = nb++;
			if (mt_hmap_put(&rows, h, nb) != 0) {
				free(b[k].ent);	/* the row stays empty */
				b[k].ent = NULL;
			}
		}
		for (int j = 0; j < n; j++)
			if (aggids[j] == e->aggid && b[k].ent)
				b[k].ent[j] = e;
	}
	mt_hmap_free(&rows);
	s.keysort = c->opts->aggsortkey;
	s.keypos = c->opts->aggsortkeypos;
	s.sortpos = n > 1 && c->opts->aggsortpos > 0 &&
		    c->opts->aggsortpos < n ? c->opts->aggsortpos : 0;
	if (nb > 1)
		qsort_r(b, nb, sizeof(*b), bundlecmp, &s);
	*nbp = nb;
	return b;
}

void
free_bundles(struct bundle *b, size_t nb)
{
	for (size_t i = 0; i < nb; i++)
		free(b[i].ent);
	free(b);
}
