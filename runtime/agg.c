/*
 * Aggregations kept in probe context, per CPU (see abi.h, mt_aggbuf).
 * Entries are appended to the CPU's aggregation data and linked into a
 * fixed hash table; they never move except when the host asks for a
 * truncation (mt_rt_aggclear, only for min()/max(): see abi.h), which
 * compacts the buffer.  A full buffer
 * is an aggregation drop.  Bucket math: machtrace/quantize.h.
 */
#include "rt.h"
#include "machtrace/jitabi.h"
#include "machtrace/quantize.h"

static uint32_t entsize(const struct mt_agg *a)
{
	return (uint32_t)sizeof(struct mt_aggent) + a->keysize + 8 * a->nvals;
}

static void init_vals(const struct mt_agg *a, int64_t *vals)
{
	for (uint32_t i = 0; i < a->nvals; i++)
		vals[i] = 0;
	if (a->func == MT_AGG_MIN)
		vals[0] = INT64_MAX;
	else if (a->func == MT_AGG_MAX)
		vals[0] = INT64_MIN;
}

/*
 * Aggregation values wrap in 64 bits as dtrace's do (sum(INT64_MAX) then
 * sum(1)); the adds are done on uint64_t, where C defines the wrap.
 */
static inline void add64(int64_t *p, int64_t v)
{
	*p = (int64_t)((uint64_t)*p + (uint64_t)v);
}

/*
 * An entry is made with gen 0 and published (mt_aggbuf.used) before its
 * first update; every update bumps gen after the values, so that a
 * consumer's snapshot on another CPU skips an entry with gen 0 instead
 * of showing its initial values (max()'s INT64_MIN).  Compiled code does
 * the same (jit/probe.c agg_update).
 */
static void update(const struct mt_agg *a, int64_t *vals, int64_t v,
		   int64_t incr)
{
	struct mt_aggent *e = (struct mt_aggent *)((uint8_t *)vals - a->keysize) - 1;

	switch (a->func) {
	case MT_AGG_COUNT:
		add64(&vals[0], 1);
		break;
	case MT_AGG_SUM:
		add64(&vals[0], v);
		break;
	case MT_AGG_MIN:
		if (v < vals[0])
			vals[0] = v;
		break;
	case MT_AGG_MAX:
		if (v > vals[0])
			vals[0] = v;
		break;
	case MT_AGG_AVG:
		add64(&vals[0], 1);
		add64(&vals[1], v);
		break;
	case MT_AGG_STDDEV: {
		unsigned __int128 sq = (unsigned __int128)((__int128)v * v);
		unsigned __int128 acc = ((unsigned __int128)(uint64_t)vals[3] << 64) |
			(uint64_t)vals[2];
		acc += sq;
		add64(&vals[0], 1);
		add64(&vals[1], v);
		vals[2] = (int64_t)(uint64_t)acc;
		vals[3] = (int64_t)(uint64_t)(acc >> 64);
		break;
	}
	case MT_AGG_QUANTIZE:
	case MT_AGG_LQUANTIZE:
	case MT_AGG_LLQUANTIZE:
		add64(&vals[mt_agg_bucket(a, v)], incr);
		break;
	}
	__atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE);
}

/*
 * A key built in scratch is only partly written: its spans, the 8-aligned
 * parts that say what it is (the aggregation id, integers, each string up
 * to the word holding its NUL, zeroes after it, memory and stacks whole).
 * A string's padding to its size is not written, hashed or compared:
 * keys cost their strings' lengths, not strsize.  Two keys of one
 * aggregation are equal when their spans are (a string's end is where
 * both have their NUL), and an entry's key is zero outside them, as the
 * consumer reads it.
 */
#define RT_KEY_SPANS	8
struct key_spans {
	uint32_t n;
	uint32_t off[RT_KEY_SPANS], len[RT_KEY_SPANS];
};

/* Beyond RT_KEY_SPANS the last span grows over the gap, zeroed. */
static void span_add(struct key_spans *ks, uint8_t *key, uint32_t off, uint32_t len)
{
	uint32_t *last = ks->n ? &ks->len[ks->n - 1] : 0;

	if (last && ks->off[ks->n - 1] + *last == off) {
		*last += len;
	} else if (ks->n < RT_KEY_SPANS) {
		ks->off[ks->n] = off;
		ks->len[ks->n++] = len;
	} else {
		uint32_t end = ks->off[ks->n - 1] + *last;
		rt_memset(key + end, 0, off - end);
		*last = off + len - ks->off[ks->n - 1];
	}
}

/* A string known loadable for `max` bytes (NUL within): no safe load. */
static int64_t copy_known(char *dst, const char *src, uint64_t size, uint64_t max)
{
	uint64_t n = 0, end;

	while (n + 1 < size && n < max && src[n])
		n++;
	end = RT_ALIGN(n + 1, 8);
	rt_memcpy(dst, src, n);
	rt_memset(dst + n, 0, end - n);
	return (int64_t)end;
}

/* Build the key of act into key[keysize] (its spans); -1 on fault. */
static int build_key(struct rt_mstate *ms, const struct mt_action *act,
		     const struct mt_agg *a, uint8_t *key, struct key_spans *ks,
		     int64_t *v, int64_t *incr)
{
	uint32_t n = 8, nv = 0;

	((uint32_t *)key)[0] = (uint32_t)act->arg;
	((uint32_t *)key)[1] = 0;
	ks->n = 0;
	span_add(ks, key, 0, 8);
	*v = 0;
	*incr = 1;
	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &ms->rt->t.recs[act->rec0 + i];
		uint64_t val = 0;
		int64_t w;

		if (ms->given)
			val = ms->given[i];
		else if (rec->difo && rt_exec(ms, rec->difo, &val))
			return -1;
		if (rec->flags & MT_RF_AGGVAL) {
			if (nv++ == 0)
				*v = (int64_t)val;
			else
				*incr = (int64_t)val;
			continue;
		}
		if (rec->kind == MT_REC_INT && (rec->flags & MT_RF_UPID)) {
			if (n + 16 > a->keysize)
				return 0;
			*(uint64_t *)(key + n) = mt_plat_var(ms->ctx, MT_VAR_PID);
			*(uint64_t *)(key + n + 8) = val;
			span_add(ks, key, n, 16);
			n += 16;
		} else if (rec->kind == MT_REC_INT) {
			if (n + 8 > a->keysize)
				return 0;
			if (rec->size && rec->size < 8) {
				int sh = 64 - 8 * (int)rec->size;
				val = (rec->flags & MT_RF_SIGNED) ?
					(uint64_t)((int64_t)(val << sh) >> sh) :
					(val << sh) >> sh;
			}
			*(uint64_t *)(key + n) = val;
			span_add(ks, key, n, 8);
			n += 8;
		} else {
			uint32_t sz = (uint32_t)RT_ALIGN(rec->size, 8);
			if (sz > a->keysize - n)
				return 0;
			if (rec->kind == MT_REC_STR) {
				/* the local target's is the runtime's buffer */
				w = ms->given && (ms->given_plat >> i & 1) ?
					copy_known((char *)key + n, (const char *)(uintptr_t)val,
						   rec->size, val == (uintptr_t)ms->c->jit_str ?
						   RT_JIT_STR : MT_JIT_PLATNAME) :
					rt_copy_strw(ms, (char *)key + n, val, rec->size);
				if (w < 0)
					return -1;
				span_add(ks, key, n, (uint32_t)w);
			} else if (rec->kind == MT_REC_STACK) {
				rt_rec_stack(ms, rec, key + n);
				span_add(ks, key, n, sz);
			} else if (rt_copy_in(ms, key + n, val, rec->size)) {
				return -1;
			} else {
				rt_memset(key + n + rec->size, 0, sz - rec->size);
				span_add(ks, key, n, sz);
			}
			n += sz;
		}
	}
	return 0;
}

static uint32_t key_hash(const uint8_t *key, const struct key_spans *ks)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (uint32_t s = 0; s < ks->n; s++) {
		const uint64_t *w = (const uint64_t *)(key + ks->off[s]);
		for (uint32_t i = 0; i < ks->len[s] / 8; i++) {
			x ^= w[i];
			x *= 0xff51afd7ed558ccdull;
			x ^= x >> 32;
		}
	}
	return (uint32_t)(x ^ (x >> 29));
}

static int key_eq(const uint8_t *ekey, const uint8_t *key, const struct key_spans *ks)
{
	for (uint32_t s = 0; s < ks->n; s++)
		if (rt_memcmp(ekey + ks->off[s], key + ks->off[s], ks->len[s]) != 0)
			return 0;
	return 1;
}

static int64_t *lookup(struct rt *rt, uint32_t cpu, const struct mt_agg *a,
		       const uint8_t *key, const struct key_spans *ks)
{
	struct mt_aggbuf *ab = &rt->aggbuf[cpu];
	uint8_t *data = rt->cpu[cpu].aggdata;
	uint32_t hash = key_hash(key, ks);
	uint32_t *head = &rt->cpu[cpu].agghash[hash & (ab->nbuckets - 1)];
	uint32_t sz = entsize(a);
	struct mt_aggent *e;

	for (uint32_t o = *head; o; o = e->next) {
		e = (struct mt_aggent *)(data + o - 1);
		if (e->hash == hash && e->aggid == *(const uint32_t *)key &&
		    key_eq((const uint8_t *)(e + 1), key, ks))
			return (int64_t *)((uint8_t *)(e + 1) + a->keysize);
	}
	if (ab->used + sz > ab->size || ab->used + sz > 0xffffffffu) {
		rt->cpustat[cpu].aggdrops++;
		return 0;
	}
	e = (struct mt_aggent *)(data + ab->used);
	e->hash = hash;
	e->aggid = *(const uint32_t *)key;
	e->gen = 0;
	rt_memset(e + 1, 0, a->keysize);
	for (uint32_t s = 0; s < ks->n; s++)
		rt_memcpy((uint8_t *)(e + 1) + ks->off[s], key + ks->off[s], ks->len[s]);
	init_vals(a, (int64_t *)((uint8_t *)(e + 1) + a->keysize));
	e->next = *head;
	*head = (uint32_t)ab->used + 1;
	__atomic_store_n(&ab->used, ab->used + sz, __ATOMIC_RELEASE);
	return (int64_t *)((uint8_t *)(e + 1) + a->keysize);
}

/*
 * A keyless aggregation (@ = count(), sum(x), quantize(x) ...) has one
 * entry per CPU, which stays where it is until a truncation: after the
 * first update it is found at c->aggent, with no key and no hash (the
 * first, and the first after a truncation, look its key up as any other).
 */
int64_t *rt_agg_keyless(struct rt *rt, uint32_t cpu, uint32_t aggid)
{
	struct rt_cpu *c = &rt->cpu[cpu];
	const struct mt_agg *a = &rt->t.aggs[aggid - 1];
	uint32_t o = c->aggent[aggid - 1];
	struct key_spans ks = { 1, { 0 }, { 8 } };
	uint64_t key = aggid;
	struct mt_aggent *e;
	int64_t *vals;

	if (o) {
		e = (struct mt_aggent *)(c->aggdata + o - 1);
		return (int64_t *)((uint8_t *)(e + 1) + 8);
	}
	vals = lookup(rt, cpu, a, (const uint8_t *)&key, &ks);
	if (vals)
		c->aggent[aggid - 1] = (uint32_t)((uint8_t *)vals - 8 -
			sizeof(struct mt_aggent) - c->aggdata) + 1;
	return vals;
}

void rt_agg_update(struct rt *rt, uint32_t aggid, int64_t *vals, int64_t v,
		   int64_t incr)
{
	update(&rt->t.aggs[aggid - 1], vals, v, incr);
}

/* The values first: a fault makes no entry.  Given values (compiled
   code's, MT_JH_AGGVALS) are used as build_key uses them. */
static void keyless(struct rt_mstate *ms, const struct mt_action *act,
		    const struct mt_agg *a)
{
	int64_t v = 0, incr = 1, *vals;
	uint32_t nv = 0;

	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &ms->rt->t.recs[act->rec0 + i];
		uint64_t val = 0;

		if (ms->given)
			val = ms->given[i];
		else if (rec->difo && rt_exec(ms, rec->difo, &val))
			return;
		if (nv++ == 0)
			v = (int64_t)val;
		else
			incr = (int64_t)val;
	}
	if (ms->c->aggent[act->arg - 1]) {	/* rt_agg_keyless's first test,
						   inline on the interpreter's path */
		struct mt_aggent *e = (struct mt_aggent *)(ms->c->aggdata +
			ms->c->aggent[act->arg - 1] - 1);
		vals = (int64_t *)((uint8_t *)(e + 1) + 8);
	} else {
		vals = rt_agg_keyless(ms->rt, ms->cpu, (uint32_t)act->arg);
	}
	if (vals)
		update(a, vals, v, incr);
}

/*
 * A key made of the probe's names alone (@[probefunc], @[probemod,
 * probename]: each key DIFO is "LDGS probeX; RET") is the same at every
 * firing of one ECB: after the first, the ECB's entry is used without
 * running those DIFOs or building the key (c->ecbent).
 */
static int probe_named_key(const struct rt *rt, const struct mt_action *act)
{
	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &rt->t.recs[act->rec0 + i];

		if (!(rec->flags & MT_RF_AGGVAL) &&
		    !mt_rec_probe_named(rec, rt->t.difos, rt->t.text))
			return 0;
	}
	return 1;
}

/* The values of act (its AGGVAL recs): -1 on fault. */
static int agg_values(struct rt_mstate *ms, const struct mt_action *act,
		      int64_t *v, int64_t *incr)
{
	uint32_t nv = 0;

	*v = 0;
	*incr = 1;
	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &ms->rt->t.recs[act->rec0 + i];
		uint64_t val = 0;

		if (!(rec->flags & MT_RF_AGGVAL))
			continue;
		if (ms->given)
			val = ms->given[i];
		else if (rec->difo && rt_exec(ms, rec->difo, &val))
			return -1;
		if (nv++ == 0)
			*v = (int64_t)val;
		else
			*incr = (int64_t)val;
	}
	return 0;
}

static int probe_named(struct rt_mstate *ms, const struct mt_action *act,
		       const struct mt_agg *a)
{
	const struct rt_ecbent *c = &ms->c->ecbent[ms->epid - 1];

	if (c->act != (uint32_t)(act - ms->rt->t.actions) + 1 || c->off == 0)
		return 0;
	rt_agg_update_entry(ms, act, c->off);
	return 1;
}

/* The entry at offset off1 - 1 of this CPU's aggregation data, one of
   act's aggregation, updated with act's values. */
void rt_agg_update_entry(struct rt_mstate *ms, const struct mt_action *act, uint32_t off1)
{
	const struct mt_agg *a = &ms->rt->t.aggs[act->arg - 1];
	struct mt_aggent *e;
	int64_t v, incr;

	if (off1 == 0 || (uint64_t)off1 - 1 + entsize(a) > ms->rt->aggbuf[ms->cpu].used)
		return;
	e = (struct mt_aggent *)(ms->c->aggdata + off1 - 1);
	if (e->aggid != act->arg || agg_values(ms, act, &v, &incr) != 0)
		return;
	update(a, (int64_t *)((uint8_t *)(e + 1) + a->keysize), v, incr);
}

/* After a keyed update: the ECB's entry if its key is probe-named; else
   that it is not (off 0), so that the next firing does not look again. */
static void remember(struct rt_mstate *ms, const struct mt_action *act,
		     const struct mt_agg *a, const int64_t *vals)
{
	struct rt_ecbent *c = &ms->c->ecbent[ms->epid - 1];
	uint32_t ai = (uint32_t)(act - ms->rt->t.actions) + 1;

	if (c->act == ai)
		return;
	c->act = ai;
	c->off = probe_named_key(ms->rt, act) ? (uint32_t)((const uint8_t *)vals -
		a->keysize - sizeof(struct mt_aggent) - ms->c->aggdata) + 1 : 0;
}

/* The key built, its entry found or made, updated. */
static __attribute__((noinline)) void keyed(struct rt_mstate *ms, const struct mt_action *act,
					    const struct mt_agg *a)
{
	uint8_t *key;
	struct key_spans ks;
	int64_t v, incr, *vals;

	key = (uint8_t *)(uintptr_t)rt_alloc_raw(ms, a->keysize);
	if (!key)
		return;
	if (build_key(ms, act, a, key, &ks, &v, &incr) == 0) {
		vals = lookup(ms->rt, ms->cpu, a, key, &ks);
		if (vals)
			update(a, vals, v, incr);
		if (vals && ms->epid && ms->epid <= ms->rt->img->necbs)
			remember(ms, act, a, vals);
	}
}

void rt_aggregate(struct rt_mstate *ms, const struct mt_action *act)
{
	const struct mt_agg *a = &ms->rt->t.aggs[act->arg - 1];
	uint64_t mark = ms->scratch_used;

	if (a->nkeys == 0 && a->keysize == 8)
		keyless(ms, act, a);
	else if (!(ms->epid && ms->epid <= ms->rt->img->necbs &&
		   probe_named(ms, act, a)))
		keyed(ms, act, a);
	ms->scratch_used = mark;
}

/* Reset values (trunc = 0) or drop entries (trunc = 1) of aggid, 0 = all. */
static void clear_cpu(struct rt *rt, uint32_t cpu, uint32_t aggid, int trunc)
{
	struct mt_aggbuf *ab = &rt->aggbuf[cpu];
	uint8_t *data = rt->cpu[cpu].aggdata;
	uint64_t in = 0, out = 0;

	while (in < ab->used) {
		struct mt_aggent *e = (struct mt_aggent *)(data + in);
		const struct mt_agg *a = &rt->t.aggs[e->aggid - 1];
		uint32_t sz = entsize(a);
		int match = aggid == 0 || e->aggid == aggid;

		if (match && !trunc) {
			init_vals(a, (int64_t *)((uint8_t *)(e + 1) + a->keysize));
			e->gen++;
		}
		if (!(match && trunc)) {
			if (out != in)
				rt_memcpy(data + out, data + in, sz);
			out += sz;
		}
		in += sz;
	}
	if (!trunc)
		return;
	for (uint32_t i = 0; i < rt->img->naggs; i++)
		rt->cpu[cpu].aggent[i] = 0;	/* entries moved */
	for (uint32_t i = 0; i < rt->img->necbs; i++)
		rt->cpu[cpu].ecbent[i].act = rt->cpu[cpu].ecbent[i].off = 0;
	for (uint32_t b = 0; b < ab->nbuckets; b++)
		rt->cpu[cpu].agghash[b] = 0;
	for (uint64_t o = 0; o < out;) {
		struct mt_aggent *e = (struct mt_aggent *)(data + o);
		uint32_t *head = &rt->cpu[cpu].agghash[e->hash & (ab->nbuckets - 1)];
		e->next = *head;
		*head = (uint32_t)o + 1;
		o += entsize(&rt->t.aggs[e->aggid - 1]);
	}
	ab->used = out;
}

void mt_rt_aggclear(struct mt_cb *cb, uint32_t aggid, int trunc)
{
	struct rt *rt = rt_get(cb);

	if (aggid > rt->img->naggs)
		return;
	for (uint32_t c = 0; c < rt->ncpus; c++)
		clear_cpu(rt, c, aggid, trunc);
}

void mt_rt_service_cpu(struct mt_cb *cb, uint32_t cpu)
{
	struct rt *rt = rt_get(cb);
	uint32_t req = __atomic_load_n(&cb->req, __ATOMIC_ACQUIRE);

	if (cpu < rt->ncpus && cb->req_arg <= rt->img->naggs &&
	    (req == MT_REQ_AGGCLEAR || req == MT_REQ_AGGTRUNC))
		clear_cpu(rt, cpu, cb->req_arg, req == MT_REQ_AGGTRUNC);
}

void mt_rt_service(struct mt_cb *cb)
{
	struct rt *rt = rt_get(cb);

	if (__atomic_load_n(&cb->req, __ATOMIC_ACQUIRE) == MT_REQ_NONE)
		return;
	for (uint32_t c = 0; c < rt->ncpus; c++)
		mt_rt_service_cpu(cb, c);
	__atomic_store_n(&cb->req, MT_REQ_NONE, __ATOMIC_RELEASE);
}

/*
 * Compiled code's cold path (runtime/jitrt.c): the entry of act's
 * probe-named key, found or made but not updated (the caller
 * updates it); offset + 1 in the CPU's aggregation data, 0 when there
 * is none (a drop, a fault).  It is remembered as keyed() does, so that
 * the next firing finds it at once.
 */
uint32_t rt_agg_entry(struct rt_mstate *ms, const struct mt_action *act)
{
	const struct mt_agg *a = &ms->rt->t.aggs[act->arg - 1];
	uint64_t mark = ms->scratch_used;
	uint8_t *key = (uint8_t *)(uintptr_t)rt_alloc_raw(ms, a->keysize);
	struct key_spans ks;
	int64_t v, incr, *vals = 0;
	uint32_t off = 0;

	if (key && build_key(ms, act, a, key, &ks, &v, &incr) == 0)
		vals = lookup(ms->rt, ms->cpu, a, key, &ks);
	if (vals) {
		off = (uint32_t)((uint8_t *)vals - a->keysize - sizeof(struct mt_aggent) -
				 ms->c->aggdata) + 1;
		if (ms->epid && ms->epid <= ms->rt->img->necbs)
			remember(ms, act, a, vals);
	}
	ms->scratch_used = mark;
	return off;
}

/* The entry's offset + 1 in this CPU's aggregation data, its values
   at vals; 0 for none. */
static uint32_t ent_off1(const struct rt_mstate *ms, const struct mt_agg *a,
			 const int64_t *vals)
{
	return vals ? (uint32_t)((const uint8_t *)vals - a->keysize - sizeof(struct mt_aggent) -
				 ms->c->aggdata) + 1 : 0;
}

/*
 * The same for an aggregation keyed by one string alone, the string at
 * str (compiled code's value of the key, @[execname]): the key built
 * from it without running the key's DIFO.  known: str has that many
 * loadable bytes (the platform's execname), 0: read with safe loads.
 */
uint32_t rt_agg_entry_str(struct rt_mstate *ms, const struct mt_action *act, uint64_t str,
			  uint32_t known)
{
	const struct mt_agg *a = &ms->rt->t.aggs[act->arg - 1];
	const struct mt_rec *rec = 0;
	uint64_t mark = ms->scratch_used;
	uint8_t *key = (uint8_t *)(uintptr_t)rt_alloc_raw(ms, a->keysize);
	struct key_spans ks;
	int64_t *vals = 0, w;

	for (uint32_t i = 0; i < act->nrecs && !rec; i++)
		if (!(ms->rt->t.recs[act->rec0 + i].flags & MT_RF_AGGVAL))
			rec = &ms->rt->t.recs[act->rec0 + i];
	if (key && rec && rec->kind == MT_REC_STR && 8 + RT_ALIGN(rec->size, 8) <= a->keysize) {
		((uint32_t *)key)[0] = (uint32_t)act->arg;
		((uint32_t *)key)[1] = 0;
		ks.n = 0;
		span_add(&ks, key, 0, 8);
		w = known ? copy_known((char *)key + 8, (const char *)(uintptr_t)str, rec->size,
				       known) :
			rt_copy_strw(ms, (char *)key + 8, str, rec->size);
		if (w >= 0) {
			span_add(&ks, key, 8, (uint32_t)w);
			vals = lookup(ms->rt, ms->cpu, a, key, &ks);
		}
	}
	ms->scratch_used = mark;
	return ent_off1(ms, a, vals);
}

/* The same for an aggregation whose recs' values are given (ms->given:
   integers, strings by address), its key built as build_key does. */
uint32_t rt_agg_entry_given(struct rt_mstate *ms, const struct mt_action *act)
{
	const struct mt_agg *a = &ms->rt->t.aggs[act->arg - 1];
	uint64_t mark = ms->scratch_used;
	uint8_t *key = (uint8_t *)(uintptr_t)rt_alloc_raw(ms, a->keysize);
	struct key_spans ks;
	int64_t *vals = 0, v, incr;

	if (key && ms->given && build_key(ms, act, a, key, &ks, &v, &incr) == 0)
		vals = lookup(ms->rt, ms->cpu, a, key, &ks);
	ms->scratch_used = mark;
	return ent_off1(ms, a, vals);
}
