/* The bucket geometry of include/machtrace/quantize.h: each function's
   smallest value of a bucket, checked against its bucket function by
   bisection (the bucket functions are the runtime's, whose values
   tests/unit/runtime/test_agg.c checks against illumos and dtrace-utils). */
#include <stdint.h>
#include "../mt_test.h"
#include "machtrace/quantize.h"

#define LIM ((int64_t)1 << 62)

/* The smallest v in [-LIM, LIM] whose bucket in a is at least b, by
   bisection (buckets grow with v); LIM + 1 when there is none. */
static int64_t
bisect_min(const struct mt_agg *a, uint32_t b)
{
	int64_t lo = -LIM, hi = LIM;

	if (mt_agg_bucket(a, lo) >= b)
		return lo;
	if (mt_agg_bucket(a, hi) < b)
		return LIM + 1;
	while ((uint64_t)hi - (uint64_t)lo > 1) {
		int64_t mid = (int64_t)((uint64_t)lo + ((uint64_t)hi - (uint64_t)lo) / 2);

		if (mt_agg_bucket(a, mid) >= b)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Every bucket b of a: its min agrees with bisection (below -LIM: the
   first bucket; above LIM: unreachable), and is in bucket b when a value
   is. */
static int
check_agg(const struct mt_agg *a)
{
	for (uint32_t b = 0; b < a->nvals; b++) {
		int64_t m = mt_agg_bucket_min(a, b), want = bisect_min(a, b);

		if (m < -LIM)
			m = -LIM;
		if (m > LIM)
			m = LIM + 1;
		if (m != want) {
			printf("agg %u (%lld %lld %lld %lld, %u buckets): bucket %u"
			       " min %lld, bisection %lld\n", a->func,
			       (long long)a->param[0], (long long)a->param[1],
			       (long long)a->param[2], (long long)a->param[3],
			       a->nvals, b, (long long)m, (long long)want);
			return 0;
		}
		/* reachable (a value whose bucket is b): min is one */
		if (want <= LIM && (b + 1 == a->nvals || bisect_min(a, b + 1) > want) &&
		    mt_agg_bucket(a, want) != b)
			return 0;
	}
	return 1;
}

static struct mt_agg
dist(uint32_t func, int64_t p0, int64_t p1, int64_t p2, int64_t p3,
     uint32_t nvals)
{
	struct mt_agg a = { 0 };

	a.func = func;
	a.param[0] = p0;
	a.param[1] = p1;
	a.param[2] = p2;
	a.param[3] = p3;
	a.nvals = nvals;
	return a;
}

TEST(quantize_geometry)
{
	struct mt_agg a = dist(MT_AGG_QUANTIZE, 0, 0, 0, 0, MT_QUANTIZE_NBUCKETS);

	CHECK(check_agg(&a));
	CHECK_EQ_INT(mt_quantize_value(MT_QUANTIZE_ZERO + 3), 4);
	CHECK_EQ_INT(mt_quantize_value(MT_QUANTIZE_ZERO - 2), -2);
	for (int b = 1; b < MT_QUANTIZE_NBUCKETS; b++)
		CHECK_EQ_INT(mt_quantize_bucket(mt_quantize_value(b)), b);
}

TEST(lquantize_geometry)
{
	static const int64_t p[][3] = {
		{ 0, 100, 10 }, { -50, 50, 7 }, { 5, 6, 1 }, { -1000, 1000000, 333 },
	};

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		uint32_t n = mt_lquantize_nbuckets(p[i][0], p[i][1], p[i][2]);
		struct mt_agg a = dist(MT_AGG_LQUANTIZE, p[i][0], p[i][1], p[i][2], 0, n);

		CHECK(check_agg(&a));
	}
	CHECK_EQ_INT(mt_lquantize_nbuckets(0, 100, 10), 12);
	CHECK_EQ_INT(mt_lquantize_min(0, 10, 11), 100);
}

TEST(llquantize_geometry)
{
	static const int64_t p[][4] = {
		{ 10, 0, 2, 10 }, { 10, 0, 9, 20 }, { 10, 1, 4, 100 }, { 2, 0, 30, 2 },
		{ 2, 3, 10, 8 }, { 4, 0, 5, 2 }, { 10, 0, 17, 10 }, { 7, 2, 6, 49 },
		{ 10, 3, 9, 20 },	/* top's latencies */
	};

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		uint32_t n = mt_llquantize_nbins(p[i][0], p[i][1], p[i][2], p[i][3]);
		uint32_t ni = (uint32_t)mt_llquantize_bucket((uint16_t)p[i][0],
			(uint16_t)p[i][1], (uint16_t)p[i][2], (uint16_t)p[i][3],
			INT64_MAX) + 1;
		struct mt_agg s = dist(MT_AGG_LLQUANTIZE, p[i][0], p[i][1],
				       p[i][2], p[i][3], n);
		struct mt_agg il = dist(MT_AGG_LLQUANTIZE, p[i][0], p[i][1],
					p[i][2], p[i][3], ni);

		CHECK(mt_llquantize_signed(&s) && !mt_llquantize_signed(&il));
		CHECK(check_agg(&s));
		CHECK(check_agg(&il));
	}
	/* the labels dtrace prints for factor 10, 0..2, 10 steps */
	CHECK_EQ_INT(mt_llquantize_bin_min(10, 0, 2, 10, 38), 10);
	CHECK_EQ_INT(mt_llquantize_bucket_min(10, 0, 2, 10, 19), 100);
	CHECK_EQ_INT(mt_llquantize_bucket_min(10, 0, 2, 10, 28), 1000);
}
MT_TEST_MAIN()
