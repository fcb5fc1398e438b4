/* The runtime's image and bytecode verifier. */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"

/* A BEGIN clause tracing the value of the given DIFO. */
static int verify_with(struct ib *b, uint32_t difo, char *err)
{
	struct mt_image *img;
	int rc;

	ib_clause(b, 0, 0, 8);
	ib_action(b, MT_ACT_TRACE, 0);
	ib_rec(b, difo, MT_REC_INT, 0, 8, 0);
	img = ib_build(b);
	rc = mt_rt_verify(img, err, 256);
	free(img);
	return rc;
}

TEST(accepts_valid)
{
	struct ib b;
	char err[256];

	ib_init(&b);
	uint32_t k = ib_int(&b, 42);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(SETX, k, 1), R(RET, 0, 0, 1));
	CHECK_EQ_INT(verify_with(&b, d, err), 0);
}

#define REJECT(name, why, ...)						\
TEST(name)								\
{									\
	struct ib b;							\
	char err[256];							\
	ib_init(&b);							\
	uint32_t d = IB_DIFO(&b, MT_RT_INT, __VA_ARGS__);		\
	CHECK_EQ_INT(verify_with(&b, d, err), -1);			\
	CHECK(strstr(err, why) != NULL);				\
}

REJECT(rejects_bad_opcode, "invalid opcode",
       MT_INSTR(200, 0, 0, 0), R(RET, 0, 0, 1))
REJECT(rejects_bad_register, "invalid register",
       R(ADD, 1, 16, 2), R(RET, 0, 0, 1))
REJECT(rejects_bad_rd, "invalid register",
       R(MOV, 1, 0, 99), R(RET, 0, 0, 1))
REJECT(rejects_backward_branch, "backward branch",
       R(NOP, 0, 0, 0), RB(BA, 0), R(RET, 0, 0, 1))
REJECT(rejects_self_branch, "backward branch",
       RB(BA, 0), R(RET, 0, 0, 1))
REJECT(rejects_branch_out_of_range, "branch out of range",
       RB(BE, 7), R(RET, 0, 0, 1))
REJECT(rejects_missing_ret, "last instruction is not ret",
       R(MOV, 1, 0, 2), R(NOP, 0, 0, 0))
REJECT(rejects_inttab_index, "inttab index out of range",
       RV(SETX, 5, 1), R(RET, 0, 0, 1))
REJECT(rejects_strtab_offset, "strtab offset out of range",
       RV(SETS, 4000, 1), R(RET, 0, 0, 1))
REJECT(rejects_unknown_variable, "unknown variable",
       RV(LDGS, MT_VAR_USER + 3, 1), R(RET, 0, 0, 1))
REJECT(rejects_store_to_builtin, "unknown or read-only variable",
       RV(STGS, MT_VAR_TIMESTAMP, 1), R(RET, 0, 0, 1))
REJECT(rejects_unknown_tls, "unknown variable",
       RV(LDTS, MT_VAR_USER, 1), R(RET, 0, 0, 1))
REJECT(rejects_unknown_subr, "unknown subroutine",
       RV(CALL, 300, 1), R(RET, 0, 0, 1))
REJECT(rejects_bad_tuple_type, "invalid tuple type",
       R(PUSHTV, 9, 0, 1), R(RET, 0, 0, 1))

TEST(accepts_known_variables)
{
	struct ib b;
	char err[256];

	ib_init(&b);
	uint32_t g = ib_var(&b, MT_VS_GLOBAL, MT_VK_SCALAR, 0, 8, 0);
	uint32_t t = ib_var(&b, MT_VS_THREAD, MT_VK_SCALAR, 0, 8, 0);
	uint32_t a = ib_var(&b, MT_VS_GLOBAL, MT_VK_ASSOC, 0, 8, 8);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(LDGS, g, 1), RV(STTS, t, 1),
			     RV(LDGAA, a, 2), RV(LDGS, MT_VAR_ARG0, 3),
			     R(RET, 0, 0, 1));
	CHECK_EQ_INT(verify_with(&b, d, err), 0);
	/* an assoc used as a scalar is refused */
	ib_init(&b);
	a = ib_var(&b, MT_VS_GLOBAL, MT_VK_ASSOC, 0, 8, 8);
	d = IB_DIFO(&b, MT_RT_INT, RV(LDGS, a, 1), R(RET, 0, 0, 1));
	CHECK_EQ_INT(verify_with(&b, d, err), -1);
}

TEST(rejects_bad_structure)
{
	struct ib b;
	char err[256];
	struct mt_image *img;

	ib_init(&b);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, MT_REC_INT, 4, 8, 0);	/* past recsize */
	img = ib_build(&b);
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof(err)), -1);
	CHECK(strstr(err, "outside the clause record") != NULL);
	img->magic = 0;
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof(err)), -1);
	CHECK(strstr(err, "bad magic") != NULL);
	free(img);

	ib_init(&b);
	ib_clause(&b, 0, 0, 0);
	ib_action(&b, MT_ACT_AGG, 5);		/* no such aggregation */
	img = ib_build(&b);
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof(err)), -1);
	CHECK(strstr(err, "unknown aggregation") != NULL);
	free(img);
}

/* The runtime has no default of its own: a strsize leaving no room for
   the NUL is the image's fault (mt_opts_image never makes one). */
TEST(rejects_strsize_zero)
{
	struct ib b;
	char err[256];
	struct mt_image *img;

	ib_init(&b);
	ib_clause(&b, 0, 0, 0);
	img = ib_build(&b);
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof(err)), 0);
	img->opt.strsize = 0;
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof(err)), -1);
	CHECK(strstr(err, "strsize 0: no room for the NUL") != NULL);
	free(img);
}

/* if/else skips are forward and stay inside the clause's actions. */
static int verify_if(uint64_t skip, int cond)
{
	struct ib b;
	struct mt_image *img;
	char err[256];
	int rc;

	ib_init(&b);
	uint32_t k = ib_int(&b, 1);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(SETX, k, 1), R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_IF, skip);
	if (cond)
		ib_rec(&b, d, MT_REC_INT, 0, 1, 0);
	ib_action(&b, MT_ACT_SKIP, 0);
	img = ib_build(&b);
	rc = mt_rt_verify(img, err, sizeof(err));
	free(img);
	return rc;
}

TEST(if_skip_bounds)
{
	CHECK_EQ_INT(verify_if(1, 1), 0);
	CHECK_EQ_INT(verify_if(2, 1), -1);	/* past the last action */
	CHECK_EQ_INT(verify_if(~0ull, 1), -1);
	CHECK_EQ_INT(verify_if(1, 0), -1);	/* no condition */
}

TEST(init_rejects_with_reason)
{
	struct ib b;
	struct rtrun r;

	ib_init(&b);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, R(NOP, 0, 0, 0), RB(BA, 0),
			     R(RET, 0, 0, 1));
	ib_clause(&b, 0, d, 0);
	CHECK_EQ_INT(rt_start(&r, &b), -1);
	CHECK(strstr(r.err, "DIFO 0 instruction 1: backward branch") != NULL);
	rt_stop(&r);
}

MT_TEST_MAIN()
