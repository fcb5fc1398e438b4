/*
 * Keyless aggregations' per-CPU entry (runtime/agg.c rt_agg_keyless,
 * rt_agg_update: the API generated code updates them through): sum, min,
 * max, avg, quantize and lquantize land in the one entry the interpreter
 * uses, min/max start from their identities, a full buffer is a drop, and
 * after a truncation the moved entry is found again, not made twice, and
 * an entry's gen stays 0 until its first update.
 */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"
#include "runtime/rt.h"

static struct rtrun R;

/* BEGIN: @ = func(arg0) (keyless: nkeys 0, keysize 8) */
static uint32_t setup(uint32_t func, uint32_t nvals, int64_t p0, int64_t p1,
		      int64_t p2, uint64_t aggsize)
{
	struct ib b;

	ib_init(&b);
	b.opt.aggsize = aggsize;
	uint32_t id = ib_agg(&b, func, 0, 8, nvals, p0, p1, p2, 0);
	uint32_t v = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			     R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 0);
	b.clauses[0].flags = 0;
	ib_action(&b, MT_ACT_AGG, id);
	ib_rec(&b, v, MT_REC_INT, 0, 8, MT_RF_AGGVAL);
	if (rt_start(&R, &b) != 0)
		return 0;
	return id;
}

static uint64_t used(void)
{
	return ((struct mt_aggbuf *)((uint8_t *)R.cb + R.cb->aggbuf_off))->used;
}

/* Fire with a, then update through the API with b; the one entry. */
static int64_t *both(uint32_t id, int64_t a, int64_t b)
{
	struct rt *rt = rt_get(R.cb);
	int64_t *v;

	rt_fire(&R, 0, (uint64_t)a);
	v = rt_agg_keyless(rt, 0, id);
	if (!v)
		return 0;
	rt_agg_update(rt, id, v, b, 1);
	return rt_aggvals(&R, id, 0, 0) == v ? v : 0;
}

TEST(sum_min_max_avg)
{
	uint32_t id = setup(MT_AGG_SUM, 1, 0, 0, 0, 4096);
	int64_t *v = both(id, 5, 7);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[0], 12);
	rt_fire(&R, 0, 1);
	CHECK_EQ_INT(v[0], 13);
	CHECK_EQ_INT(used(), sizeof(struct mt_aggent) + 8 + 8);
	rt_stop(&R);

	/* the API makes the entry with min's identity */
	id = setup(MT_AGG_MIN, 1, 0, 0, 0, 4096);
	v = rt_agg_keyless(rt_get(R.cb), 0, id);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[0], INT64_MAX);
	rt_agg_update(rt_get(R.cb), id, v, 9, 1);
	rt_fire(&R, 0, 4);
	rt_fire(&R, 0, 6);
	CHECK_EQ_INT(v[0], 4);
	CHECK_EQ_INT(used(), sizeof(struct mt_aggent) + 8 + 8);
	rt_stop(&R);

	id = setup(MT_AGG_MAX, 1, 0, 0, 0, 4096);
	v = both(id, -5, -7);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[0], -5);
	rt_stop(&R);

	id = setup(MT_AGG_AVG, 2, 0, 0, 0, 4096);
	v = both(id, 10, 20);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[0], 2);
	CHECK_EQ_INT(v[1], 30);
	rt_stop(&R);
}

TEST(quantize_lquantize)
{
	uint32_t id = setup(MT_AGG_QUANTIZE, 127, 0, 0, 0, 4096);
	int64_t *v = both(id, 1, 1024);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[64], 1);
	CHECK_EQ_INT(v[74], 1);
	rt_agg_update(rt_get(R.cb), id, v, 1024, 5);	/* an increment */
	CHECK_EQ_INT(v[74], 6);
	rt_stop(&R);

	/* lquantize(x, 0, 10, 2): under, 5 levels, over */
	id = setup(MT_AGG_LQUANTIZE, 7, 0, 10, 2, 4096);
	v = both(id, 3, 100);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[2], 1);
	CHECK_EQ_INT(v[6], 1);
	rt_agg_update(rt_get(R.cb), id, v, -1, 1);
	CHECK_EQ_INT(v[0], 1);
	rt_stop(&R);
}

TEST(full_buffer_drops)
{
	/* room for the values but not the entry (its 8-byte key too) */
	uint32_t id = setup(MT_AGG_QUANTIZE, 127, 0, 0, 0,
			    sizeof(struct mt_aggent) + 8 * 127);
	CHECK(id != 0);
	CHECK(rt_agg_keyless(rt_get(R.cb), 0, id) == NULL);
	CHECK_EQ_INT(rt_stat(&R)->aggdrops, 1);
	rt_stop(&R);
}

TEST(found_again_after_trunc)
{
	struct ib b;
	struct rt *rt;
	int64_t *v;

	/* two keyless sums; @b's entry made first, then @a's */
	ib_init(&b);
	uint32_t a = ib_agg(&b, MT_AGG_SUM, 0, 8, 1, 0, 0, 0, 0);
	uint32_t c = ib_agg(&b, MT_AGG_SUM, 0, 8, 1, 0, 0, 0, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt = rt_get(R.cb);
	rt_agg_update(rt, c, rt_agg_keyless(rt, 0, c), 1, 1);
	rt_agg_update(rt, a, rt_agg_keyless(rt, 0, a), 3, 1);
	/* truncating @b moves @a's entry to the front */
	mt_rt_aggclear(R.cb, c, 1);
	CHECK_EQ_INT(rt->cpu[0].aggent[a - 1], 0);
	v = rt_agg_keyless(rt, 0, a);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[0], 3);
	CHECK(rt_aggvals(&R, a, 0, 0) == v);
	CHECK_EQ_INT(used(), sizeof(struct mt_aggent) + 8 + 8);
	rt_stop(&R);
}

/* An entry is published before its first update with gen 0 (a snapshot
   skips it: consumer/agg.c); each update bumps gen after the values. */
TEST(gen_zero_until_first_update)
{
	uint32_t id = setup(MT_AGG_MAX, 1, 0, 0, 0, 4096);
	struct rt *rt = rt_get(R.cb);
	int64_t *v = rt_agg_keyless(rt, 0, id);
	const struct mt_aggent *e;

	CHECK(v != NULL);
	e = (const struct mt_aggent *)((const uint8_t *)v - 8) - 1;
	CHECK_EQ_INT(v[0], INT64_MIN);
	CHECK_EQ_INT(e->gen, 0);
	rt_agg_update(rt, id, v, -3, 1);
	CHECK_EQ_INT(v[0], -3);
	CHECK_EQ_INT(e->gen, 1);
	rt_fire(&R, 0, 2);
	CHECK_EQ_INT(v[0], 2);
	CHECK_EQ_INT(e->gen, 2);
	rt_stop(&R);
}

MT_TEST_MAIN()
