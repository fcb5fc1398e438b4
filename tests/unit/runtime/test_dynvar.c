/* Dynamic variables: associative arrays, thread-locals, deletes, drops. */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"

static struct rtrun R;

/*
 * BEGIN clause 1: a[arg0] = arg0 (0 deletes); self->t = arg0.
 * BEGIN clause 2: trace(a[arg0]); trace(self->t).
 */
static void setup(uint64_t dynvarsize)
{
	struct ib b;

	ib_init(&b);
	b.opt.dynvarsize = dynvarsize;
	uint32_t a = ib_var(&b, MT_VS_GLOBAL, MT_VK_ASSOC, 0, 8, 8);
	uint32_t t = ib_var(&b, MT_VS_THREAD, MT_VK_SCALAR, 0, 8, 0);
	uint32_t st = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			      R(FLUSHTS, 0, 0, 0), R(PUSHTV, MT_TT_INT, 0, 1),
			      RV(STGAA, a, 1), RV(STTS, t, 1),
			      R(RET, 0, 0, 0));
	uint32_t ld = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			      R(FLUSHTS, 0, 0, 0), R(PUSHTV, MT_TT_INT, 0, 1),
			      RV(LDGAA, a, 2), R(RET, 0, 0, 2));
	uint32_t lt = IB_DIFO(&b, MT_RT_INT, RV(LDTS, t, 1), R(RET, 0, 0, 1));
	ib_store_then_trace2(&b, st, ld, lt);
	rt_start(&R, &b);
}

static int64_t last(int field)
{
	int n = rt_nrecs(&R);
	return ((int64_t *)rt_data(rt_rec(&R, n - 1)))[field];
}

TEST(assoc_store_load_delete)
{
	setup(1 << 16);
	rt_fire(&R, 0, 41);
	CHECK_EQ_INT(last(0), 41);
	CHECK_EQ_INT(last(1), 41);
	rt_fire(&R, 0, 42);
	CHECK_EQ_INT(last(0), 42);
	/* storing 0 deletes the element and the thread-local */
	rt_fire(&R, 0, 0);
	CHECK_EQ_INT(last(0), 0);
	CHECK_EQ_INT(last(1), 0);
	CHECK_EQ_INT(rt_stat(&R)->dynvar_drops, 0);
	rt_stop(&R);
}

TEST(dynvar_drops_counted)
{
	/* a and self->t share dynvarsize half and half (one variable each):
	   the scalar self->t has a row (tls.c), a[] 380 bytes of chunks;
	   chunk = 16 + 80 key + 8 value = 104 bytes, + 4 for the hash head:
	   3 chunks bought + 3 spare = 6 */
	setup(760);
	for (uint64_t k = 1; k <= 20; k++)
		rt_fire(&R, 0, k);
	/* 6 chunks for a[1..6], 14 drops for a[7..20]; self->t none */
	CHECK_EQ_INT(rt_stat(&R)->dynvar_drops, 14);
	CHECK_EQ_INT(last(0), 0);
	/* deleting frees space again */
	rt_fire(&R, 0, 0);
	rt_fire(&R, 0, 3);		/* a[3] = 3 exists */
	CHECK_EQ_INT(last(0), 3);
	rt_stop(&R);
}

TEST(dynvarsize_below_one_element)
{
	/* a[int] = int needs 4 (variable id) + 8 (key) + 8 (value) bytes */
	setup(19);
	CHECK_EQ_STR(R.err, "Enabling exceeds size of buffer");
	rt_stop(&R);
	setup(20);
	CHECK_EQ_STR(R.err, "");
	rt_fire(&R, 0, 5);
	CHECK_EQ_INT(last(0), 5);
	rt_stop(&R);
}

MT_TEST_MAIN()
