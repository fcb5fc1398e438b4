/* Aggregations: bucket math (vs. known illumos/dtrace-utils values),
   functions, keys, drops, clear/trunc. */
#include "../mt_test.h"
#include "machtrace/quantize.h"
#include "tests/lib/rtimg.h"

static struct rtrun R;

TEST(quantize_buckets)
{
	CHECK_EQ_INT(mt_quantize_bucket(0), 63);
	CHECK_EQ_INT(mt_quantize_bucket(1), 64);
	CHECK_EQ_INT(mt_quantize_bucket(2), 65);
	CHECK_EQ_INT(mt_quantize_bucket(3), 65);
	CHECK_EQ_INT(mt_quantize_bucket(4), 66);
	CHECK_EQ_INT(mt_quantize_bucket(7), 66);
	CHECK_EQ_INT(mt_quantize_bucket(8), 67);
	CHECK_EQ_INT(mt_quantize_bucket(1024), 74);
	CHECK_EQ_INT(mt_quantize_bucket(INT64_MAX), 126);
	CHECK_EQ_INT(mt_quantize_bucket(-1), 62);
	CHECK_EQ_INT(mt_quantize_bucket(-2), 61);
	CHECK_EQ_INT(mt_quantize_bucket(-3), 61);
	CHECK_EQ_INT(mt_quantize_bucket(-4), 60);
	CHECK_EQ_INT(mt_quantize_bucket(-7), 60);
	CHECK_EQ_INT(mt_quantize_bucket(-8), 59);
	CHECK_EQ_INT(mt_quantize_bucket(INT64_MIN), 0);
}

TEST(llquantize_buckets_illumos)
{
	/* factor 10, magnitudes 0..2, 10 steps */
	CHECK_EQ_INT(mt_llquantize_bucket(10, 0, 2, 10, 0), 0);
	CHECK_EQ_INT(mt_llquantize_bucket(10, 0, 2, 10, 1), 1);
	CHECK_EQ_INT(mt_llquantize_bucket(10, 0, 2, 10, 9), 9);
	CHECK_EQ_INT(mt_llquantize_bucket(10, 0, 2, 10, 10), 10);
	CHECK_EQ_INT(mt_llquantize_bucket(10, 0, 2, 10, 99), 18);
	CHECK_EQ_INT(mt_llquantize_bucket(10, 0, 2, 10, 100), 19);
	CHECK_EQ_INT(mt_llquantize_bucket(10, 0, 2, 10, 999), 27);
	CHECK_EQ_INT(mt_llquantize_bucket(10, 0, 2, 10, 1000), 28);
	CHECK_EQ_INT(mt_llquantize_bucket(10, 0, 2, 10, INT64_MAX), 28);
	/* low magnitude 1: values below 10 in bucket 0 */
	CHECK_EQ_INT(mt_llquantize_bucket(10, 1, 2, 10, 9), 0);
	CHECK_EQ_INT(mt_llquantize_bucket(2, 0, 4, 2, 3), 2);
}

TEST(llquantize_bins_dtrace_utils)
{
	CHECK_EQ_INT(mt_llquantize_bin(10, 0, 2, 10, 0), 28);
	CHECK_EQ_INT(mt_llquantize_bin(10, 0, 2, 10, 1), 29);
	CHECK_EQ_INT(mt_llquantize_bin(10, 0, 2, 10, 9), 37);
	CHECK_EQ_INT(mt_llquantize_bin(10, 0, 2, 10, 10), 38);
	CHECK_EQ_INT(mt_llquantize_bin(10, 0, 2, 10, 999), 55);
	CHECK_EQ_INT(mt_llquantize_bin(10, 0, 2, 10, 1000), 56);
	CHECK_EQ_INT(mt_llquantize_bin(10, 0, 2, 10, -1), 27);
	CHECK_EQ_INT(mt_llquantize_bin(10, 0, 2, 10, -1000), 0);
}

/* BEGIN: @[arg0 & 0xff] = func(arg0 [, incr]) with the given agg. */
static uint32_t agg_setup(struct ib *b, uint32_t func, uint32_t nvals,
			  int64_t p0, int64_t p1, int64_t p2, int64_t p3,
			  int haveval, int64_t incr)
{
	uint32_t aggid = ib_agg(b, func, 1, 16, nvals, p0, p1, p2, p3);
	uint32_t m = ib_int(b, 0xff);
	uint32_t key = IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			       RV(SETX, m, 2), R(AND, 1, 2, 1), R(RET, 0, 0, 1));
	uint32_t v = IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			     R(RET, 0, 0, 1));
	ib_clause(b, 0, 0, 0);
	b->clauses[b->nclauses - 1].flags = 0;
	ib_action(b, MT_ACT_AGG, aggid);
	ib_rec(b, key, MT_REC_INT, 0, 8, 0);
	if (haveval)
		ib_rec(b, v, MT_REC_INT, 0, 8, MT_RF_AGGVAL);
	if (incr) {
		uint32_t k = ib_int(b, (uint64_t)incr);
		uint32_t i = IB_DIFO(b, MT_RT_INT, RV(SETX, k, 1),
				     R(RET, 0, 0, 1));
		ib_rec(b, i, MT_REC_INT, 0, 8, MT_RF_AGGVAL);
	}
	return aggid;
}

static int64_t *vals_for(uint32_t aggid, uint64_t key)
{
	return rt_aggvals(&R, aggid, &key, 8);
}

TEST(count_sum_avg_min_max_stddev)
{
	static const uint32_t funcs[] = { MT_AGG_COUNT, MT_AGG_SUM, MT_AGG_AVG,
		MT_AGG_MIN, MT_AGG_MAX, MT_AGG_STDDEV };
	static const uint32_t nv[] = { 1, 1, 2, 1, 1, 4 };
	static const int64_t in[] = { 0x105, 0x205, 0x305, 0x7 };

	for (int f = 0; f < 6; f++) {
		struct ib b;
		ib_init(&b);
		uint32_t id = agg_setup(&b, funcs[f], nv[f], 0, 0, 0, 0,
					funcs[f] != MT_AGG_COUNT, 0);
		CHECK_EQ_INT(rt_start(&R, &b), 0);
		for (int i = 0; i < 4; i++)
			rt_fire(&R, 0, (uint64_t)in[i]);
		CHECK_EQ_INT(rt_nrecs(&R), 0);
		int64_t *v5 = vals_for(id, 5), *v7 = vals_for(id, 7);
		CHECK(v5 && v7);
		switch (funcs[f]) {
		case MT_AGG_COUNT:
			CHECK_EQ_INT(v5[0], 3); CHECK_EQ_INT(v7[0], 1); break;
		case MT_AGG_SUM:
			CHECK_EQ_INT(v5[0], 0x105 + 0x205 + 0x305); break;
		case MT_AGG_AVG:
			CHECK_EQ_INT(v5[0], 3);
			CHECK_EQ_INT(v5[1], 0x105 + 0x205 + 0x305); break;
		case MT_AGG_MIN:
			CHECK_EQ_INT(v5[0], 0x105); CHECK_EQ_INT(v7[0], 7); break;
		case MT_AGG_MAX:
			CHECK_EQ_INT(v5[0], 0x305); break;
		case MT_AGG_STDDEV:
			CHECK_EQ_INT(v7[0], 1);
			CHECK_EQ_INT(v7[1], 7);
			CHECK_EQ_INT(v7[2], 49);
			CHECK_EQ_INT(v7[3], 0);
			break;
		}
		rt_stop(&R);
	}
}

TEST(stddev_128bit_sum_of_squares)
{
	struct ib b;

	ib_init(&b);
	uint32_t id = agg_setup(&b, MT_AGG_STDDEV, 4, 0, 0, 0, 0, 1, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 0x100000000ull);		/* key 0, square = 2^64 */
	rt_fire(&R, 0, 0x100000000ull);
	int64_t *v = vals_for(id, 0);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[2], 0);
	CHECK_EQ_INT(v[3], 2);
	rt_stop(&R);
}

TEST(quantize_lquantize_with_increment)
{
	struct ib b;

	ib_init(&b);
	uint32_t q = agg_setup(&b, MT_AGG_QUANTIZE, 127, 0, 0, 0, 0, 1, 3);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 7);
	rt_fire(&R, 0, 0x107);
	int64_t *v = vals_for(q, 7);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[66], 3);
	CHECK_EQ_INT(v[72], 3);		/* 0x107 = 263: [256, 512) */
	rt_stop(&R);

	/* lquantize(arg0, 0, 10, 2): 5 levels + under/over = 7 values */
	ib_init(&b);
	uint32_t l = agg_setup(&b, MT_AGG_LQUANTIZE, 7, 0, 10, 2, 0, 1, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 0x100 | 0);	/* key 0, value 256: overflow */
	rt_fire(&R, 0, 0);
	rt_fire(&R, 0, 3);
	v = vals_for(l, 0);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[6], 1);
	CHECK_EQ_INT(v[1], 1);
	CHECK_EQ_INT(vals_for(l, 3)[2], 1);
	rt_stop(&R);

	/* below base */
	ib_init(&b);
	l = agg_setup(&b, MT_AGG_LQUANTIZE, 7, 5, 15, 2, 0, 1, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 4);
	rt_fire(&R, 0, 14);
	CHECK_EQ_INT(vals_for(l, 4)[0], 1);
	CHECK_EQ_INT(vals_for(l, 14)[5], 1);
	rt_stop(&R);
}

TEST(llquantize_in_probe_context)
{
	struct ib b;

	ib_init(&b);
	uint32_t l = agg_setup(&b, MT_AGG_LLQUANTIZE, 57, 10, 0, 2, 10, 1, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 9);
	CHECK_EQ_INT(vals_for(l, 9)[37], 1);
	rt_stop(&R);
	ib_init(&b);
	l = agg_setup(&b, MT_AGG_LLQUANTIZE, 29, 10, 0, 2, 10, 1, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 0x100 | 99);
	CHECK_EQ_INT(vals_for(l, 99)[21], 1);	/* 355: [300, 400) */
	rt_stop(&R);
}

TEST(aggregation_drops)
{
	struct ib b;

	ib_init(&b);
	/* entry = 16 header + 16 key + 8 value = 40 bytes; 100 fit in 4000 */
	b.opt.aggsize = 4000;
	uint32_t id = agg_setup(&b, MT_AGG_COUNT, 1, 0, 0, 0, 0, 0, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	for (int round = 0; round < 2; round++)
		for (uint64_t i = 0; i < 256; i++)
			rt_fire(&R, 0, i);
	CHECK_EQ_INT(rt_stat(&R)->aggdrops, 2 * (256 - 100));
	CHECK_EQ_INT(vals_for(id, 99)[0], 2);
	CHECK(vals_for(id, 100) == NULL);
	rt_stop(&R);
}

/* @[stack()] = count(): the key rec is filled by mt_plat_stack (none on
   the host: all-zero pcs). */
TEST(stack_key)
{
	struct ib b;

	ib_init(&b);
	uint32_t id = ib_agg(&b, MT_AGG_COUNT, 1, 8 + 32, 1, 0, 0, 0, 0);
	ib_clause(&b, 0, 0, 0);
	b.clauses[0].flags = 0;
	ib_action(&b, MT_ACT_AGG, id);
	ib_rec(&b, 0, MT_REC_STACK, 0, 32, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 0);
	rt_fire(&R, 0, 0);
	uint64_t zero[4] = { 0 };
	int64_t *v = rt_aggvals(&R, id, zero, 32);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[0], 2);
	CHECK_EQ_INT(rt_nrecs(&R), 0);
	rt_stop(&R);
}

/* Probe pi aggregates count() keyed by the string s (clause of its own). */
static void str_key_clause(struct ib *b, uint32_t pi, uint32_t id, const char *s)
{
	uint32_t d = IB_DIFO(b, MT_RT_STRING, RV(SETS, ib_str(b, s), 1), R(RET, 0, 0, 1));

	b->clauses[ib_clause(b, pi, 0, 0)].flags = 0;
	ib_action(b, MT_ACT_AGG, id);
	ib_rec(b, d, MT_REC_STR, 0, 32, 0);
}

/*
 * A string key is copied, hashed and compared up to its NUL, not its
 * size, and the scratch key buffer is not cleared between firings: a
 * short string after a long one must still be its own key, and every
 * entry's key must read as the string zero-padded to its size (the
 * consumer reads whole keys).  7 and 8 characters: the NUL at the end of
 * a word and at the start of the next.
 */
TEST(string_key_up_to_nul)
{
	static const char *str[] = { "abcdefghijklmnopqrstuvwxyz01234",
				     "ab", "abcdefg", "abcdefgh" };
	static const int times[] = { 1, 3, 2, 1 };
	static const uint32_t probe[] = { 3, 1, 0, 2 };
	struct ib b;

	ib_init(&b);
	uint32_t id = ib_agg(&b, MT_AGG_COUNT, 1, 8 + 32, 1, 0, 0, 0, 0);
	for (int i = 0; i < 4; i++)
		str_key_clause(&b, probe[i], id, str[i]);
	b.error_probe = 0;
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 3, 0);	/* the long one first: it stays in scratch */
	rt_fire(&R, 1, 0);
	rt_fire(&R, 0, 0);
	rt_fire(&R, 1, 0);
	rt_fire(&R, 2, 0);
	rt_fire(&R, 0, 0);
	rt_fire(&R, 1, 0);
	for (int i = 0; i < 4; i++) {
		char key[32] = { 0 };
		strcpy(key, str[i]);
		int64_t *v = rt_aggvals(&R, id, key, 32);
		CHECK(v != NULL);
		CHECK_EQ_INT(v[0], times[i]);
	}
	CHECK_EQ_INT(rt_stat(&R)->aggdrops, 0);
	rt_stop(&R);
}

/* More parts than the runtime tracks separately (nine strings, each
   followed by an integer: ten spans of written bytes): the key is still
   exact. */
#define NPAIRS	9
TEST(string_key_many_parts)
{
	struct ib b;
	static const char *s[NPAIRS] = { "x", "yy", "zzzzzzzzz", "w", "v", "u", "t", "ss", "r" };
	uint8_t key[NPAIRS * 40];
	uint32_t keyd[NPAIRS];

	ib_init(&b);
	b.error_probe = 0;
	uint32_t id = ib_agg(&b, MT_AGG_COUNT, 2 * NPAIRS, 8 + sizeof key, 1, 0, 0, 0, 0);
	uint32_t a0 = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), R(RET, 0, 0, 1));
	for (int i = 0; i < NPAIRS; i++)
		keyd[i] = IB_DIFO(&b, MT_RT_STRING, RV(SETS, ib_str(&b, s[i]), 1),
				  R(RET, 0, 0, 1));
	uint32_t other = IB_DIFO(&b, MT_RT_STRING, RV(SETS, ib_str(&b, "rr"), 1), R(RET, 0, 0, 1));
	for (uint32_t pi = 0; pi < 2; pi++) {	/* END: "rr" for the last string */
		b.clauses[ib_clause(&b, pi, 0, 0)].flags = 0;
		ib_action(&b, MT_ACT_AGG, id);
		for (int i = 0; i < NPAIRS; i++) {
			ib_rec(&b, pi && i == NPAIRS - 1 ? other : keyd[i], MT_REC_STR, 0, 32, 0);
			ib_rec(&b, a0, MT_REC_INT, 0, 8, 0);
		}
	}
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 7);
	rt_fire(&R, 1, 7);
	rt_fire(&R, 0, 7);
	rt_fire(&R, 0, 8);
	memset(key, 0, sizeof key);
	for (int i = 0; i < NPAIRS; i++) {
		strcpy((char *)key + 40 * i, s[i]);
		*(uint64_t *)(key + 40 * i + 32) = 7;
	}
	int64_t *v = rt_aggvals(&R, id, key, sizeof key);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[0], 2);
	strcpy((char *)key + 40 * (NPAIRS - 1), "rr");
	v = rt_aggvals(&R, id, key, sizeof key);
	CHECK(v != NULL);
	CHECK_EQ_INT(v[0], 1);
	rt_stop(&R);
}

/*
 * A keyless aggregation's entry is found again without its key (struct
 * rt_cpu aggent) until a truncation moves it: @k[arg0] = count() first,
 * then @ = sum(arg0); truncating @k moves @'s entry to the front, where
 * the next sum must land (one entry, the running total).
 */
TEST(keyless_entry_moves_at_trunc)
{
	struct ib b;

	ib_init(&b);
	b.error_probe = 0;
	uint32_t a0 = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), R(RET, 0, 0, 1));
	uint32_t k = ib_agg(&b, MT_AGG_COUNT, 1, 16, 1, 0, 0, 0, 0);
	uint32_t s = ib_agg(&b, MT_AGG_SUM, 0, 8, 1, 0, 0, 0, 0);
	b.clauses[ib_clause(&b, 0, 0, 0)].flags = 0;
	ib_action(&b, MT_ACT_AGG, k);
	ib_rec(&b, a0, MT_REC_INT, 0, 8, 0);
	ib_action(&b, MT_ACT_AGG, s);
	ib_rec(&b, a0, MT_REC_INT, 0, 8, MT_RF_AGGVAL);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 5);
	rt_fire(&R, 0, 6);
	CHECK_EQ_INT(rt_aggvals(&R, s, 0, 0)[0], 11);
	mt_rt_aggclear(R.cb, k, 1);
	CHECK(rt_aggvals(&R, k, 0, 0) == NULL);
	rt_fire(&R, 0, 7);
	CHECK_EQ_INT(rt_aggvals(&R, s, 0, 0)[0], 18);
	struct mt_aggbuf *ab = (void *)((uint8_t *)R.cb + R.cb->aggbuf_off);
	CHECK_EQ_INT(ab->used, 2 * sizeof(struct mt_aggent) + 24 + 16);	/* @k[7], @ */
	rt_stop(&R);
}

/*
 * @[probename] = count() in one clause of BEGIN and END: after its first
 * firing an ECB finds its entry without the key (struct rt_cpu ecbent),
 * each probe its own; a truncation of another aggregation moves the
 * entries, and the counts must go on in the moved ones.
 */
TEST(probe_named_key_per_ecb)
{
	struct ib b;

	ib_init(&b);
	b.error_probe = 0;
	uint32_t a0 = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), R(RET, 0, 0, 1));
	uint32_t pn = IB_DIFO(&b, MT_RT_STRING, RV(LDGS, MT_VAR_PROBENAME, 2), R(RET, 0, 0, 2));
	uint32_t k = ib_agg(&b, MT_AGG_COUNT, 1, 16, 1, 0, 0, 0, 0);
	uint32_t n = ib_agg(&b, MT_AGG_COUNT, 1, 8 + 32, 1, 0, 0, 0, 0);
	uint32_t cl = ib_clause(&b, 0, 0, 0);
	b.clauses[cl].flags = 0;
	ib_action(&b, MT_ACT_AGG, k);
	ib_rec(&b, a0, MT_REC_INT, 0, 8, 0);
	ib_action(&b, MT_ACT_AGG, n);
	ib_rec(&b, pn, MT_REC_STR, 0, 32, 0);
	b.ecbs[b.necbs].probe = 1;	/* END: the same clause */
	b.ecbs[b.necbs++].clause = cl;
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 1);
	rt_fire(&R, 1, 2);
	rt_fire(&R, 0, 3);
	char begin[32] = "BEGIN", end[32] = "END";
	CHECK_EQ_INT(rt_aggvals(&R, n, begin, 32)[0], 2);
	CHECK_EQ_INT(rt_aggvals(&R, n, end, 32)[0], 1);
	mt_rt_aggclear(R.cb, k, 1);
	rt_fire(&R, 0, 4);
	rt_fire(&R, 1, 5);
	rt_fire(&R, 1, 6);
	CHECK_EQ_INT(rt_aggvals(&R, n, begin, 32)[0], 3);
	CHECK_EQ_INT(rt_aggvals(&R, n, end, 32)[0], 3);
	CHECK_EQ_INT(rt_aggvals(&R, k, 0, 0)[0], 1);
	rt_stop(&R);
}

TEST(aggsize_too_small)
{
	struct ib b;

	ib_init(&b);
	b.opt.aggsize = 8;
	agg_setup(&b, MT_AGG_COUNT, 1, 0, 0, 0, 0, 0, 0);
	CHECK_EQ_INT(rt_start(&R, &b), -1);
	CHECK_EQ_STR(R.err, "Enabling exceeds size of buffer");
	rt_stop(&R);
}

TEST(clear_and_trunc)
{
	struct ib b;

	ib_init(&b);
	uint32_t id = agg_setup(&b, MT_AGG_MIN, 1, 0, 0, 0, 0, 1, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 1);
	rt_fire(&R, 0, 2);
	rt_fire(&R, 0, 3);
	mt_rt_aggclear(R.cb, id, 0);
	CHECK_EQ_INT(vals_for(id, 2)[0], INT64_MAX);
	rt_fire(&R, 0, 2);
	CHECK_EQ_INT(vals_for(id, 2)[0], 2);
	/* trunc through the control-block request */
	R.cb->req_arg = id;
	R.cb->req = MT_REQ_AGGTRUNC;
	rt_fire(&R, 0, 3);
	CHECK_EQ_INT(R.cb->req, MT_REQ_NONE);
	CHECK(vals_for(id, 1) == NULL);
	CHECK(vals_for(id, 2) == NULL);
	CHECK_EQ_INT(vals_for(id, 3)[0], 3);
	rt_fire(&R, 0, 1);
	CHECK_EQ_INT(vals_for(id, 1)[0], 1);
	rt_stop(&R);
}

MT_TEST_MAIN()
