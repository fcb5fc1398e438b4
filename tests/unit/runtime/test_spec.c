/* Speculations: speculation(), speculate, commit, discard and drops. */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"

static struct rtrun R;

static uint32_t pred_eq(struct ib *b, uint64_t k)
{
	uint32_t ki = ib_int(b, k), one = ib_int(b, 1);

	return IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), RV(SETX, ki, 2),
		       R(CMP, 1, 2, 0), RB(BE, 5), R(RET, 0, 0, 0),
		       RV(SETX, one, 3), R(RET, 0, 0, 3));
}

/*
 * arg0 == 1: s = speculation();   arg0 == 2: speculate(s); trace(arg0);
 * arg0 == 3: commit(s);           arg0 == 4: discard(s);
 */
static void setup(uint64_t specsize)
{
	struct ib b;

	ib_init(&b);
	b.opt.specsize = specsize;
	uint32_t s = ib_var(&b, MT_VS_GLOBAL, MT_VK_SCALAR, 0, 8, 0);
	uint32_t mk = IB_DIFO(&b, MT_RT_INT, R(FLUSHTS, 0, 0, 0),
			      RV(CALL, MT_SUBR_SPECULATION, 1), RV(STGS, s, 1),
			      R(RET, 0, 0, 1));
	uint32_t ls = IB_DIFO(&b, MT_RT_INT, RV(LDGS, s, 1), R(RET, 0, 0, 1));
	uint32_t a0 = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			      R(RET, 0, 0, 1));

	ib_clause(&b, 0, pred_eq(&b, 1), 0);
	b.clauses[b.nclauses - 1].flags = 0;
	ib_action(&b, MT_ACT_DIFEXPR, 0);
	ib_rec(&b, mk, MT_REC_INT, 0, 0, 0);

	ib_clause(&b, 0, pred_eq(&b, 2), 8);
	b.clauses[b.nclauses - 1].flags |= MT_CF_SPECULATIVE;
	ib_action(&b, MT_ACT_SPECULATE, 0);
	ib_rec(&b, ls, MT_REC_INT, 0, 0, 0);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, a0, MT_REC_INT, 0, 8, 0);

	ib_clause(&b, 0, pred_eq(&b, 3), 8);
	ib_action(&b, MT_ACT_COMMIT, 0);
	ib_rec(&b, ls, MT_REC_INT, 0, 8, 0);

	ib_clause(&b, 0, pred_eq(&b, 4), 8);
	ib_action(&b, MT_ACT_DISCARD, 0);
	ib_rec(&b, ls, MT_REC_INT, 0, 8, 0);
	rt_start(&R, &b);
}

TEST(commit_copies_after_own_record)
{
	setup(512);
	rt_fire(&R, 0, 1);
	rt_fire(&R, 0, 2);
	rt_fire(&R, 0, 2);
	CHECK_EQ_INT(rt_nrecs(&R), 0);
	rt_fire(&R, 0, 3);
	CHECK_EQ_INT(rt_nrecs(&R), 3);
	CHECK_EQ_INT(rt_rec(&R, 0)->epid, 3);		/* commit clause */
	CHECK_EQ_INT(rt_rec(&R, 1)->epid, 2);
	CHECK_EQ_INT(*(int64_t *)rt_data(rt_rec(&R, 2)), 2);
	/* committed: the buffer is free again, speculate records nothing */
	rt_fire(&R, 0, 2);
	rt_fire(&R, 0, 3);
	CHECK_EQ_INT(rt_nrecs(&R), 4);
	rt_stop(&R);
}

TEST(discard_and_unavailable)
{
	setup(512);
	rt_fire(&R, 0, 1);
	rt_fire(&R, 0, 2);
	rt_fire(&R, 0, 4);
	CHECK_EQ_INT(rt_nrecs(&R), 1);			/* discard's own */
	rt_fire(&R, 0, 1);				/* s = 1 again */
	rt_fire(&R, 0, 1);				/* none left: s = 0 */
	CHECK_EQ_INT(rt_stat(&R)->spec_unavail, 1);
	rt_fire(&R, 0, 2);				/* speculate(0) */
	rt_fire(&R, 0, 3);
	CHECK_EQ_INT(rt_nrecs(&R), 2);
	rt_stop(&R);
}

TEST(speculation_buffer_full)
{
	setup(512);					/* 21 records of 24 */
	rt_fire(&R, 0, 1);
	for (int i = 0; i < 30; i++)
		rt_fire(&R, 0, 2);
	CHECK_EQ_INT(rt_stat(&R)->spec_drops, 9);
	rt_fire(&R, 0, 3);
	CHECK_EQ_INT(rt_nrecs(&R), 22);
	rt_stop(&R);
}

MT_TEST_MAIN()
