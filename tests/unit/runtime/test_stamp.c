/*
 * Per-thread stamps (mt_rt_stamp) and MT_ARGMAP_ELAPSED: an argument is
 * the time since the current thread's stamp and consumes it; without a
 * stamp it reads 0; the verifier takes the new mapping.
 */
#include <time.h>
#include "../mt_test.h"
#include "tests/lib/rtimg.h"

static struct rtrun R;

/* probe 0 (BEGIN) traces arg0 and arg1: arg0 = elapsed, arg1 = raw arg0 */
static int setup(void)
{
	struct ib b;

	ib_init(&b);
	b.probes[0].nmap = 2;
	b.probes[0].argmap[0] = MT_ARGMAP_ELAPSED;
	b.probes[0].argmap[1] = 0;
	uint32_t d0 = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), R(RET, 0, 0, 1));
	uint32_t d1 = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG1, 1), R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 16);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d0, MT_REC_INT, 0, 8, 0);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d1, MT_REC_INT, 8, 8, 0);
	return rt_start(&R, &b);
}

static uint64_t field(int n, int k)
{
	struct mt_rechdr *h = rt_rec(&R, n);
	return h ? ((uint64_t *)rt_data(h))[k] : (uint64_t)-1;
}

static void stamp(void)
{
	struct mt_pctx ctx;

	memset(&ctx, 0, sizeof ctx);
	mt_rt_stamp(R.cb, &ctx);
}

TEST(elapsed_measures_from_the_stamp_and_consumes_it)
{
	struct timespec ts = { 0, 2000000 };

	CHECK_EQ_INT(setup(), 0);
	rt_fire(&R, 0, 7);		/* no stamp yet */
	stamp();
	nanosleep(&ts, NULL);
	rt_fire(&R, 0, 8);		/* 2 ms later */
	rt_fire(&R, 0, 9);		/* consumed: none left */
	CHECK_EQ_INT(rt_nrecs(&R), 3);
	CHECK_EQ_INT(field(0, 0), 0);
	CHECK_EQ_INT(field(0, 1), 7);
	CHECK(field(1, 0) >= 2000000 && field(1, 0) < 10000000000ull);
	CHECK_EQ_INT(field(1, 1), 8);
	CHECK_EQ_INT(field(2, 0), 0);
	rt_stop(&R);
}

TEST(restamp_restarts_the_interval)
{
	struct timespec ts = { 0, 20000000 };

	CHECK_EQ_INT(setup(), 0);
	stamp();
	nanosleep(&ts, NULL);
	stamp();
	rt_fire(&R, 0, 1);
	CHECK(field(0, 0) < 20000000);
	rt_stop(&R);
}

TEST(verifier_refuses_unknown_mappings)
{
	struct ib b;
	struct mt_image *img;
	char err[256] = "";

	ib_init(&b);
	b.probes[0].nmap = 1;
	b.probes[0].argmap[0] = 0xfc;
	img = ib_build(&b);
	CHECK(mt_rt_verify(img, err, sizeof err) != 0);
	CHECK(strstr(err, "argument map out of range") != NULL);
	free(img);
}

MT_TEST_MAIN()
