/* Principal buffers: switch/fill/ring policies and exact drop counts. */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"

static struct rtrun R;

/* BEGIN: trace(arg0) (a 24-byte record); END: trace(arg0) if withend. */
static void setup(uint32_t policy, uint64_t bufsize, int withend)
{
	struct ib b;

	ib_init(&b);
	b.opt.bufpolicy = policy;
	b.opt.bufsize = bufsize;
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			     R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
	if (withend) {
		ib_clause(&b, 1, 0, 8);
		ib_action(&b, MT_ACT_TRACE, 0);
		ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
	}
	rt_start(&R, &b);
}

static int64_t val(int n)
{
	struct mt_rechdr *h = rt_rec(&R, n);
	return h ? *(int64_t *)rt_data(h) : -1;
}

TEST(switch_drops_exactly)
{
	setup(MT_BUFPOLICY_SWITCH, 256, 0);
	for (int i = 0; i < 20; i++)
		rt_fire(&R, 0, (uint64_t)i);
	CHECK_EQ_INT(rt_nrecs(&R), 10);
	CHECK_EQ_INT(rt_buf(&R)->drops, 10);
	CHECK_EQ_INT(val(9), 9);
	/* the consumer takes 5 records; the next ones wrap (with padding) */
	rt_buf(&R)->tail += 5 * 24;
	for (int i = 20; i < 30; i++)
		rt_fire(&R, 0, (uint64_t)i);
	CHECK_EQ_INT(rt_nrecs(&R), 10);
	CHECK_EQ_INT(val(0), 5);
	CHECK_EQ_INT(val(4), 9);
	CHECK_EQ_INT(val(5), 20);
	CHECK_EQ_INT(val(9), 24);
	CHECK_EQ_INT(rt_buf(&R)->drops, 15);
	rt_stop(&R);
}

TEST(fill_stops_and_keeps_end_space)
{
	setup(MT_BUFPOLICY_FILL, 256, 1);
	for (int i = 0; i < 20; i++)
		rt_fire(&R, 0, (uint64_t)i);
	/* 24 bytes stay reserved for the END record */
	CHECK_EQ_INT(rt_nrecs(&R), 9);
	CHECK_EQ_INT(rt_buf(&R)->drops, 11);
	CHECK_EQ_INT(rt_buf(&R)->filled, 1);
	/* draining does not reopen a filled buffer */
	rt_buf(&R)->tail += 5 * 24;
	rt_fire(&R, 0, 99);
	CHECK_EQ_INT(rt_buf(&R)->drops, 12);
	rt_fire(&R, 1, 77);
	CHECK_EQ_INT(rt_nrecs(&R), 5);
	CHECK_EQ_INT(val(4), 77);
	rt_stop(&R);
}

TEST(ring_keeps_newest)
{
	setup(MT_BUFPOLICY_RING, 256, 0);
	for (int i = 0; i < 100; i++)
		rt_fire(&R, 0, (uint64_t)i);
	CHECK_EQ_INT(rt_buf(&R)->drops, 0);
	int n = rt_nrecs(&R);
	CHECK(n >= 9 && n <= 10);
	CHECK_EQ_INT(val(n - 1), 99);
	for (int i = 1; i < n; i++)
		CHECK_EQ_INT(val(i), val(i - 1) + 1);
	CHECK(rt_buf(&R)->head - rt_buf(&R)->tail <= 256);
	rt_stop(&R);
}

TEST(enabling_exceeds_buffer)
{
	setup(MT_BUFPOLICY_SWITCH, 16, 0);
	CHECK(strstr(R.err, "Enabling exceeds size of buffer") != NULL);
	rt_stop(&R);
}

/* A fault in a later action discards the whole clause record. */
TEST(records_are_atomic)
{
	struct ib b;

	ib_init(&b);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			     R(RET, 0, 0, 1));
	uint32_t bad = IB_DIFO(&b, MT_RT_INT, R(LDX, 0, 0, 1),
			       R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 16);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, bad, MT_REC_INT, 8, 8, 0);
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 5);
	CHECK_EQ_INT(rt_nrecs(&R), 2);
	CHECK_EQ_INT(rt_rec(&R, 0)->epid, MT_EPID_ERROR);
	CHECK_EQ_INT(((struct mt_errrec *)rt_data(rt_rec(&R, 0)))->action, 1);
	CHECK_EQ_INT(rt_rec(&R, 1)->epid, 2);
	CHECK_EQ_INT(val(1), 5);
	rt_stop(&R);
}

MT_TEST_MAIN()
