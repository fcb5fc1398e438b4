/*
 * Strings cost their length, not strsize: a string assigned to a
 * variable writes its bytes, its NUL and zeroes only as far as the old
 * string reached (the storage is a string then zeroes); a string in a
 * record is copied with its NUL into the zeroed staging record; a string
 * in an associative array's key takes the words up to its NUL.
 */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"
#include "runtime/rt.h"

static struct rtrun R;
static uint32_t G, A;

/* BEGIN: g = arg0 ? "0123456789abcdefghij" : "ab"; a[g] = 1; trace(g) */
static int setup(void)
{
	struct ib b;

	ib_init(&b);			/* strsize 32 */
	G = ib_var(&b, MT_VS_GLOBAL, MT_VK_SCALAR, MT_VF_REF | MT_VF_STRING, 32, 0);
	A = ib_var(&b, MT_VS_GLOBAL, MT_VK_ASSOC, 0, 8, 32);
	uint32_t lng = ib_str(&b, "0123456789abcdefghij");
	uint32_t sht = ib_str(&b, "ab");
	uint32_t one = ib_int(&b, 1);
	uint32_t st = IB_DIFO(&b, MT_RT_INT,
			      RV(LDGS, MT_VAR_ARG0, 1), R(TST, 1, 0, 0),
			      RB(BE, 5),
			      RV(SETS, lng, 2), RB(BA, 6),
			      RV(SETS, sht, 2),			/* 5 */
			      RV(STGS, G, 2),			/* 6 */
			      RV(LDGS, G, 2), R(FLUSHTS, 0, 0, 0),
			      R(PUSHTR, MT_TT_STR, 0, 2), RV(SETX, one, 3),
			      RV(STGAA, A, 3), R(RET, 0, 0, 0));
	uint32_t ld = IB_DIFO(&b, MT_RT_STRING, RV(LDGS, G, 1), R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 32);
	ib_action(&b, MT_ACT_DIFEXPR, 0);
	ib_rec(&b, st, MT_REC_INT, 0, 0, 0);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, ld, MT_REC_STR, 0, 32, 0);
	return rt_start(&R, &b);
}

static char *gstore(void)
{
	struct rt *rt = rt_get(R.cb);
	return (char *)rt->globals + rt_slot(rt, MT_VS_GLOBAL, G)->off;
}

TEST(variable_assignment_writes_to_the_old_end)
{
	CHECK_EQ_INT(setup(), 0);
	rt_fire(&R, 0, 1);
	char *g = gstore();
	CHECK_EQ_STR(g, "0123456789abcdefghij");
	for (int i = 20; i < 32; i++)
		CHECK_EQ_INT(g[i], 0);
	/* a byte past the old string's NUL is not the assignment's to write:
	   plant one to see that a short string stops at the old end */
	g[30] = 'Z';
	rt_fire(&R, 0, 0);
	CHECK_EQ_STR(g, "ab");
	for (int i = 2; i <= 20; i++)
		CHECK_EQ_INT(g[i], 0);
	CHECK_EQ_INT(g[30], 'Z');
	g[30] = 0;
	/* a longer one over a shorter one */
	rt_fire(&R, 0, 1);
	CHECK_EQ_STR(g, "0123456789abcdefghij");
	CHECK_EQ_INT(rt_stat(&R)->errors, 0);
	rt_stop(&R);
}

TEST(record_string_nul_then_zero)
{
	CHECK_EQ_INT(setup(), 0);
	rt_fire(&R, 0, 1);
	rt_fire(&R, 0, 0);
	CHECK_EQ_INT(rt_nrecs(&R), 2);
	char *r0 = rt_data(rt_rec(&R, 0)), *r1 = rt_data(rt_rec(&R, 1));
	CHECK_EQ_STR(r0, "0123456789abcdefghij");
	CHECK_EQ_STR(r1, "ab");
	for (int i = 2; i < 32; i++)
		CHECK_EQ_INT(r1[i], 0);
	rt_stop(&R);
}

TEST(assoc_string_key_up_to_nul)
{
	CHECK_EQ_INT(setup(), 0);
	rt_fire(&R, 0, 0);		/* a["ab"]: the first chunk */
	struct rt *rt = rt_get(R.cb);
	struct rt_dvar *dv = (struct rt_dvar *)rt->dyn;
	/* scope and id, then "ab" and its NUL in one word (not 32 bytes) */
	CHECK_EQ_INT(dv->keylen, 16);
	rt_fire(&R, 0, 1);
	dv = (struct rt_dvar *)(rt->dyn + rt->dyn_chunksize);
	CHECK_EQ_INT(dv->keylen, 8 + 24);
	/* "ab" again finds its element: no third chunk */
	rt_fire(&R, 0, 0);
	CHECK_EQ_INT(rt->cpu[0].dyn_free, 3);
	CHECK_EQ_INT(rt_stat(&R)->dynvar_drops, 0);
	rt_stop(&R);
}

MT_TEST_MAIN()
