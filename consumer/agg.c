/*
 * Aggregations on the consumer side: the runtime's per-CPU aggregation
 * buffers merged into one table (a snapshot, taken when needed), and
 * clear().  Sorting is in aggsort.c, printing and trunc() in aggprint.c.
 */
#include <stdlib.h>
#include <string.h>
#include "machtrace/consumer.h"
#include "impl.h"

const struct mt_agg *
agg_of(const struct mt_consumer *c, uint32_t aggid)
{
	return aggid >= 1 && aggid <= c->prog->naggs ?
		&c->prog->aggs[aggid - 1] : NULL;
}

const struct mt_agg_info *
info_of(const struct mt_consumer *c, uint32_t aggid)
{
	return c->prog->agg_info ? &c->prog->agg_info[aggid - 1] : NULL;
}

uint32_t
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
		return 8;
	case MT_TI_USYM: case MT_TI_UMOD: case MT_TI_UADDR:
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
	if (!c->normal || !c->printed || !c->keyoff ||
	    mt_hmap_reserve(&c->ahash, 1024) != 0)
		return -1;
	{
		uint32_t maxv = 1;

		for (uint32_t i = 0; i < n; i++)
			if (c->prog->aggs[i].nvals > maxv)
				maxv = c->prog->aggs[i].nvals;
		if ((c->zeros = calloc(maxv, sizeof(int64_t))) == NULL)
			return -1;
	}
	{
		uint32_t maxk = 8;

		for (uint32_t i = 1; i <= n; i++)
			if (keybytes(c, i) > maxk)
				maxk = keybytes(c, i);
		if ((c->keybuf = malloc(maxk)) == NULL)
			return -1;
	}
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

			/* the runtime 8-aligns every key element */
			c->keyoff[i][k] = off;
			if (r && !(r->flags & MT_RF_AGGVAL))
				off += r->kind == MT_REC_INT &&
				       !(r->flags & MT_RF_UPID) ? 8 :
				       (r->size + 7) & ~7u;
			else
				off += (key_elem_size(c, &ai->keys[k]) + 7) & ~7u;
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
	mt_hmap_free(&c->ahash);
	if (c->keyoff)
		for (uint32_t i = 0; i <= c->prog->naggs; i++)
			free(c->keyoff[i]);
	free(c->keyoff);
	free(c->normal);
	free(c->printed);
	free(c->zeros);
	for (size_t i = 0; i < c->nmodkeys; i++)
		free(c->modkeys[i].name);
	free(c->modkeys);
	free(c->keybuf);
}

uint64_t
hash_key(uint32_t aggid, const uint8_t *key, uint32_t n)
{
	return mt_hash_bytes(key, n, MT_HASH_INIT ^ aggid);
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
		dst[0] = (int64_t)((uint64_t)dst[0] + (uint64_t)src[0]);
		dst[1] = (int64_t)((uint64_t)dst[1] + (uint64_t)src[1]);
		break;
	}
	default:
		/* 64-bit values wrap as in the runtime: add on uint64_t */
		for (uint32_t i = 0; i < a->nvals; i++)
			dst[i] = (int64_t)((uint64_t)dst[i] + (uint64_t)src[i]);
		break;
	}
}

struct ent_key {
	uint32_t aggid, n;
	const uint8_t *key;
};

static int
ent_eq(const void *ctx, uintptr_t val)
{
	const struct ent_key *k = ctx;
	const struct agg_ent *e = (const struct agg_ent *)val;

	return e->aggid == k->aggid && memcmp(e->key, k->key, k->n) == 0;
}

static struct agg_ent *
ent_find(struct mt_consumer *c, uint32_t aggid, const uint8_t *key)
{
	struct ent_key k = { aggid, keybytes(c, aggid), key };

	return (struct agg_ent *)mt_hmap_find(&c->ahash,
					      hash_key(aggid, key, k.n),
					      ent_eq, &k);
}

static int
agg_add(struct mt_consumer *c, uint32_t aggid, const uint8_t *key,
	const int64_t *vals, uint32_t gen)
{
	const struct mt_agg *a = agg_of(c, aggid);
	uint32_t n = keybytes(c, aggid);
	struct agg_ent *e;

	if (a == NULL)
		return -1;
	e = ent_find(c, aggid, key);
	if (e == NULL) {
		if (MT_VEC_ROOM(c->ents, c->nents, c->capents, 64) != 0)
			return -1;
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
		e->gen = 0;
		if (mt_hmap_put(&c->ahash, e->hash, (uintptr_t)e) != 0)
			return -1;
		c->ents[c->nents++] = e;
	} else if (!e->seen) {
		vals_init(a, e->vals);
		e->gen = 0;
	}
	e->seen = 1;
	e->gen += gen;
	vals_merge(a, e->vals, vals);
	return 0;
}

static void
agg_begin_snapshot(struct mt_consumer *c)
{
	for (size_t i = 0; i < c->nents; i++)
		c->ents[i]->seen = 0;
}

static void
ent_unlink(struct mt_consumer *c, struct agg_ent *e)
{
	mt_hmap_del(&c->ahash, e->hash, (uintptr_t)e);
	free(e->key);
	free(e->vals);
	free(e->base);
	free(e);
}

/*
 * Drop entries the runtime no longer has; apply the clear()/trunc()
 * baselines: what is shown is raw - base, and a truncated entry stays
 * hidden until the runtime updates it again.
 */
static void
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
		if (e->base == NULL) {
			e->hidden = e->hide_unchanged = 0;
		} else {
			if (e->gen != e->base_gen ||
			    memcmp(e->base, e->vals, a->nvals * 8) != 0)
				e->hide_unchanged = 0;
			e->hidden = e->hide_unchanged;
			if (agg_additive(a))
				for (uint32_t k = 0; k < a->nvals; k++)
					e->vals[k] = (int64_t)((uint64_t)e->vals[k] -
							       (uint64_t)e->base[k]);
		}
		c->ents[j++] = e;
	}
	c->nents = j;
}

/* The address standing for every pc of mod's name; pc if unknown. */
static uint64_t
mod_canon(struct mt_consumer *c, uint64_t pc)
{
	char name[512];
	struct modkey *v;

	mt_sym_format(&c->syms, pc, MT_SYM_MOD, name, sizeof(name));
	if (strncmp(name, "0x", 2) == 0)
		return pc;
	for (size_t i = 0; i < c->nmodkeys; i++)
		if (strcmp(c->modkeys[i].name, name) == 0)
			return c->modkeys[i].pc;
	v = realloc(c->modkeys, (c->nmodkeys + 1) * sizeof(*v));
	if (v == NULL)
		return pc;
	c->modkeys = v;
	if ((v[c->nmodkeys].name = strdup(name)) == NULL)
		return pc;
	v[c->nmodkeys++].pc = pc;
	return pc;
}

/*
 * The key as dtrace merges it: sym()/func(), usym()/ufunc() and mod()
 * keys stand for their symbol, so every pc of one function (or one
 * module) is one row.  A user key is the pid, then the pc.  Returns key
 * itself when nothing needs changing.
 */
static const uint8_t *
key_canon(struct mt_consumer *c, uint32_t aggid, const uint8_t *key)
{
	const struct mt_agg_info *ai = info_of(c, aggid);
	int copied = 0;

	for (uint32_t k = 0; ai && k < ai->nkeys; k++) {
		uint32_t kind = ai->keys[k].kind, off = c->keyoff[aggid][k];
		uint64_t pc, canon, delta;
		int64_t pid;

		if (kind == MT_TI_USYM && ai->keys[k].size > 8) {
			memcpy(&pid, key + off, 8);
			off += 8;
		} else if (kind != MT_TI_SYM && kind != MT_TI_MOD) {
			continue;
		}
		memcpy(&pc, key + off, 8);
		if (kind == MT_TI_MOD)
			canon = mod_canon(c, pc);
		else if (kind == MT_TI_USYM)
			canon = mt_usym_offset(&c->syms, pid, pc, &delta) == 0 ? pc - delta : pc;
		else
			canon = mt_sym_offset(&c->syms, pc, &delta) == 0 ? pc - delta : pc;
		if (canon == pc)
			continue;
		if (!copied) {
			memcpy(c->keybuf, key, keybytes(c, aggid));
			copied = 1;
		}
		memcpy(c->keybuf + off, &canon, 8);
	}
	return copied ? c->keybuf : key;
}

/*
 * Merge every CPU's aggregation buffer into the table.  Taken lazily: at
 * most once per drain, when printa(), clear(), trunc() or the exit
 * printout needs it.
 */
int
agg_snapshot(struct mt_consumer *c)
{
	struct mt_cb *cb = c->cb;
	const struct mt_aggbuf *ab;

	if (c->snap_valid || cb == NULL || cb->aggbuf_off == 0)
		return 0;
	c->snap_valid = 1;
	agg_begin_snapshot(c);
	ab = (const struct mt_aggbuf *)((const char *)cb + cb->aggbuf_off);
	for (uint32_t cpu = 0; cpu < c->ncpus; cpu++) {
		const uint8_t *base = (const uint8_t *)cb + ab[cpu].data_off;
		uint64_t off = 0;
		/* entries are complete below used (published with release) */
		uint64_t used = __atomic_load_n(&ab[cpu].used, __ATOMIC_ACQUIRE);

		while (off + sizeof(struct mt_aggent) <= used) {
			const struct mt_aggent *ae = (const void *)(base + off);
			const struct mt_agg *a = agg_of(c, ae->aggid);
			const uint8_t *key;
			uint32_t gen;

			if (a == NULL)
				break;
			key = base + off + sizeof(*ae);
			/* gen 0: made, its first update under way on its
			   CPU (runtime/agg.c update()): not an entry yet */
			gen = __atomic_load_n(&ae->gen, __ATOMIC_ACQUIRE);
			if (gen != 0 &&
			    agg_add(c, ae->aggid, key_canon(c, ae->aggid, key + 8),
				    (const int64_t *)(key + a->keysize), gen) != 0)
				return -1;
			off += sizeof(*ae) + a->keysize + 8ULL * a->nvals;
		}
	}
	agg_end_snapshot(c);
	return 0;
}

/*
 * The runtime never zeroes nor drops what probes add to: additive
 * functions (count, sum, avg, stddev, the quantizes) only grow there.
 * clear() and trunc() keep the raw values of the snapshot as the entry's
 * base, and the shown value is raw - base: the base is exactly what was
 * last shown, so every increment lands in exactly one interval however
 * the probes race with the snapshot.  min() and max() cannot be
 * subtracted; the runtime resets those (a request in the control block).
 */
int
agg_additive(const struct mt_agg *a)
{
	return a->func != MT_AGG_MIN && a->func != MT_AGG_MAX;
}

/* Make what the entry shows now its baseline. */
int
agg_set_base(struct mt_consumer *c, struct agg_ent *e)
{
	const struct mt_agg *a = agg_of(c, e->aggid);
	int64_t *raw = malloc(a->nvals * 8);

	if (raw == NULL)
		return -1;
	memcpy(raw, e->vals, a->nvals * 8);
	if (e->base && agg_additive(a))
		for (uint32_t k = 0; k < a->nvals; k++)
			raw[k] = (int64_t)((uint64_t)raw[k] + (uint64_t)e->base[k]);
	free(e->base);
	e->base = raw;
	e->base_gen = e->gen;
	return 0;
}

void
agg_clear(struct mt_consumer *c, uint32_t aggid)
{
	const struct mt_agg *a = agg_of(c, aggid);

	if (a == NULL)
		return;
	agg_snapshot(c);
	if (!agg_additive(a) && c->target && c->target->ops->aggclear)
		c->target->ops->aggclear(c->target, aggid, 0);
	for (size_t i = 0; i < c->nents; i++) {
		struct agg_ent *e = c->ents[i];

		if (e->aggid != aggid)
			continue;
		if (agg_additive(a)) {
			if (agg_set_base(c, e) != 0)
				continue;
			vals_init(a, e->vals);
		} else {
			vals_init(a, e->vals);
			e->vals[0] = 0;
			free(e->base);
			e->base = NULL;
		}
	}
}

/*
 * mt_consumer_agg_walk: the entries of one aggregation as values, for
 * programs that compute with them (machtrace top) instead of printing.
 * A fresh snapshot is taken so that everything the probes added before
 * the call is in it.
 */
int
mt_consumer_agg_walk(struct mt_consumer *c, const char *name,
		     mt_aggwalk_fn fn, void *arg)
{
	struct mt_aggkey keys[MT_AGGWALK_MAXKEYS];
	uint32_t aggid = 0;

	for (uint32_t i = 0; c->prog->agg_info && i < c->prog->naggs; i++)
		if (strcmp(c->prog->agg_info[i].name, name) == 0)
			aggid = i + 1;
	if (aggid == 0) {
		snprintf(c->errmsg, sizeof(c->errmsg), "no aggregation @%s", name);
		return -1;
	}
	c->snap_valid = 0;
	if (agg_snapshot(c) != 0)
		return -1;
	for (size_t i = 0; i < c->nents; i++) {
		const struct agg_ent *e = c->ents[i];
		const struct mt_agg_info *ai = info_of(c, aggid);
		uint32_t nk = ai->nkeys < MT_AGGWALK_MAXKEYS ? ai->nkeys :
			MT_AGGWALK_MAXKEYS;

		if (e->aggid != aggid)
			continue;
		for (uint32_t k = 0; k < nk; k++) {
			const uint8_t *p = e->key + c->keyoff[aggid][k];

			keys[k].s = NULL;
			keys[k].raw = p;
			keys[k].len = c->keyoff[aggid][k + 1] -
				c->keyoff[aggid][k];
			keys[k].i = 0;
			if (ai->keys[k].kind == MT_TI_STR)
				keys[k].s = (const char *)p;
			else
				memcpy(&keys[k].i, p, 8);
		}
		if (fn(arg, agg_of(c, aggid), keys, nk, e->vals) != 0)
			break;
	}
	return 0;
}
