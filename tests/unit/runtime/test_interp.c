/* The interpreter: arithmetic, branches, variables, safe loads, faults. */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"

/* Trace the DIFO's value from BEGIN; return it (or the fault code). */
static struct rtrun R;

static int64_t eval(struct ib *b, uint32_t d, uint64_t arg0)
{
	struct mt_rechdr *h;
	int64_t v;

	ib_clause(b, 0, 0, 8);
	ib_action(b, MT_ACT_TRACE, 0);
	ib_rec(b, d, MT_REC_INT, 0, 8, 0);
	if (rt_start(&R, b) != 0) {
		printf("init: %s\n", R.err);
		return -999;
	}
	rt_fire(&R, 0, arg0);
	h = rt_rec(&R, 0);
	v = h && h->epid != MT_EPID_ERROR ? *(int64_t *)rt_data(h) : -777;
	rt_stop(&R);
	return v;
}

#define K(b, v)	ib_int(b, (uint64_t)(v))

/* r1 = a, r2 = b, r3 = r1 OP r2, ret r3 */
static int64_t binop(int op, int64_t a, int64_t c)
{
	struct ib b;

	ib_init(&b);
	uint32_t ka = K(&b, a), kb = K(&b, c);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(SETX, ka, 1), RV(SETX, kb, 2),
			     MT_INSTR(op, 1, 2, 3), R(RET, 0, 0, 3));
	return eval(&b, d, 0);
}

TEST(arithmetic)
{
	CHECK_EQ_INT(binop(MT_OP_ADD, 40, 2), 42);
	CHECK_EQ_INT(binop(MT_OP_SUB, 2, 40), -38);
	CHECK_EQ_INT(binop(MT_OP_MUL, -6, 7), -42);
	CHECK_EQ_INT(binop(MT_OP_SDIV, -7, 2), -3);
	CHECK_EQ_INT(binop(MT_OP_SREM, -7, 2), -1);
	/* dtrace-utils: negative when exactly one operand is */
	CHECK_EQ_INT(binop(MT_OP_SREM, 19, -5), -4);
	CHECK_EQ_INT(binop(MT_OP_SREM, -19, -5), 4);
	CHECK_EQ_INT(binop(MT_OP_SDIV, -19, -5), 3);
	CHECK_EQ_INT(binop(MT_OP_UDIV, -1, 2), (int64_t)(UINT64_MAX / 2));
	CHECK_EQ_INT(binop(MT_OP_UREM, 7, 4), 3);
	CHECK_EQ_INT(binop(MT_OP_SDIV, INT64_MIN, -1), INT64_MIN);
	CHECK_EQ_INT(binop(MT_OP_SREM, INT64_MIN, -1), 0);
	CHECK_EQ_INT(binop(MT_OP_SLL, 1, 40), 1LL << 40);
	CHECK_EQ_INT(binop(MT_OP_SRL, -16, 60), 15);
	CHECK_EQ_INT(binop(MT_OP_SRA, -16, 2), -4);
	CHECK_EQ_INT(binop(MT_OP_AND, 0xff0, 0x0ff), 0x0f0);
	CHECK_EQ_INT(binop(MT_OP_OR, 0xf00, 0x00f), 0xf0f);
	CHECK_EQ_INT(binop(MT_OP_XOR, 0xff, 0x0f), 0xf0);
}

/* if (a CMP b) ret 1 else ret 0, with branch op br */
static int64_t branch(int br, int64_t a, int64_t c)
{
	struct ib b;

	ib_init(&b);
	uint32_t ka = K(&b, a), kb = K(&b, c), one = K(&b, 1);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(SETX, ka, 1), RV(SETX, kb, 2),
			     R(CMP, 1, 2, 0), MT_INSTR_BR(br, 5),
			     R(RET, 0, 0, 0), RV(SETX, one, 3),
			     R(RET, 0, 0, 3));
	return eval(&b, d, 0);
}

TEST(branches)
{
	CHECK_EQ_INT(branch(MT_OP_BE, 3, 3), 1);
	CHECK_EQ_INT(branch(MT_OP_BE, 3, 4), 0);
	CHECK_EQ_INT(branch(MT_OP_BNE, 3, 4), 1);
	CHECK_EQ_INT(branch(MT_OP_BG, -1, -2), 1);
	CHECK_EQ_INT(branch(MT_OP_BG, -2, 1), 0);
	CHECK_EQ_INT(branch(MT_OP_BGU, -2, 1), 1);
	CHECK_EQ_INT(branch(MT_OP_BL, -2, 1), 1);
	CHECK_EQ_INT(branch(MT_OP_BLU, -2, 1), 0);
	CHECK_EQ_INT(branch(MT_OP_BGE, 5, 5), 1);
	CHECK_EQ_INT(branch(MT_OP_BLE, 6, 5), 0);
	CHECK_EQ_INT(branch(MT_OP_BGEU, 1, 2), 0);
	CHECK_EQ_INT(branch(MT_OP_BLEU, 1, 2), 1);
	CHECK_EQ_INT(branch(MT_OP_BA, 1, 2), 1);
	/* INT64_MIN vs 1: no overflow in the signed comparison */
	CHECK_EQ_INT(branch(MT_OP_BL, INT64_MIN, 1), 1);
}

TEST(builtins_and_args)
{
	struct ib b;

	ib_init(&b);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			     RV(LDGS, MT_VAR_ID, 2), R(ADD, 1, 2, 3),
			     R(RET, 0, 0, 3));
	CHECK_EQ_INT(eval(&b, d, 100), 101);	/* BEGIN is id 1 */
	ib_init(&b);
	uint32_t k = K(&b, 0);
	d = IB_DIFO(&b, MT_RT_INT, RV(SETX, k, 2), R(LDGA, MT_VAR_ARGS, 2, 1),
		    R(RET, 0, 0, 1));
	CHECK_EQ_INT(eval(&b, d, 55), 55);
}

/* An SDT probe's argument map: arg0 = raw arg2, arg1 = 0 (ZERO), arg2
   and beyond 0 (past nmap); a map naming a raw argument past arg9 is
   refused by the verifier. */
TEST(probe_argument_map)
{
	struct ib b;
	struct mt_pctx ctx;
	struct mt_rechdr *h;

	ib_init(&b);
	b.probes[0].nmap = 2;
	b.probes[0].argmap[0] = 2;
	b.probes[0].argmap[1] = MT_ARGMAP_ZERO;
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			     RV(LDGS, MT_VAR_ARG1, 2), R(ADD, 1, 2, 3),
			     RV(LDGS, MT_VAR_ARG2, 2), R(ADD, 3, 2, 3),
			     R(RET, 0, 0, 3));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	memset(&ctx, 0, sizeof ctx);
	ctx.arg[0] = 1000, ctx.arg[1] = 100, ctx.arg[2] = 42;
	mt_rt_probe(R.cb, 0, &ctx);
	h = rt_rec(&R, 0);
	CHECK(h && h->epid != MT_EPID_ERROR);
	if (h)
		CHECK_EQ_INT(*(int64_t *)rt_data(h), 42);
	rt_stop(&R);

	ib_init(&b);
	b.probes[0].nmap = 1;
	b.probes[0].argmap[0] = 10;
	ib_clause(&b, 0, 0, 0);
	CHECK(rt_start(&R, &b) != 0);
	CHECK(strstr(R.err, "argument map") != NULL);
	rt_stop(&R);
}

TEST(global_and_local_variables)
{
	struct ib b;
	struct mt_rechdr *h;

	ib_init(&b);
	uint32_t g = ib_var(&b, MT_VS_GLOBAL, MT_VK_SCALAR, 0, 8, 0);
	uint32_t l = ib_var(&b, MT_VS_LOCAL, MT_VK_SCALAR, 0, 8, 0);
	/* g = g + arg0; this->l = g * 2; trace(this->l) */
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(LDGS, g, 1),
			     RV(LDGS, MT_VAR_ARG0, 2), R(ADD, 1, 2, 1),
			     RV(STGS, g, 1), R(ADD, 1, 1, 3), RV(STLS, l, 3),
			     RV(LDLS, l, 4), R(RET, 0, 0, 4));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 5);
	rt_fire(&R, 0, 7);
	h = rt_rec(&R, 1);
	CHECK(h != NULL);
	CHECK_EQ_INT(*(int64_t *)rt_data(h), 24);
	rt_stop(&R);
}

TEST(strings_compare_and_copy)
{
	struct ib b;
	struct mt_rechdr *h;

	ib_init(&b);
	uint32_t s1 = ib_str(&b, "hello"), s2 = ib_str(&b, "help");
	uint32_t gs = ib_var(&b, MT_VS_GLOBAL, MT_VK_SCALAR,
			     MT_VF_REF | MT_VF_STRING, 32, 0);
	/* ret ("hello" < "help") */
	uint32_t one = K(&b, 1);
	uint32_t d1 = IB_DIFO(&b, MT_RT_INT, RV(SETS, s1, 1), RV(SETS, s2, 2),
			      R(SCMP, 1, 2, 0), RB(BL, 5), R(RET, 0, 0, 0),
			      RV(SETX, one, 3), R(RET, 0, 0, 3));
	/* gs = "hello"; trace(gs) */
	uint32_t d2 = IB_DIFO(&b, MT_RT_STRING, RV(SETS, s1, 1), RV(STGS, gs, 1),
			      RV(LDGS, gs, 2), R(RET, 0, 0, 2));
	ib_clause(&b, 0, 0, 40);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d1, MT_REC_INT, 0, 8, 0);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d2, MT_REC_STR, 8, 32, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 0);
	h = rt_rec(&R, 0);
	CHECK(h != NULL);
	CHECK_EQ_INT(*(int64_t *)rt_data(h), 1);
	CHECK_EQ_STR((char *)rt_data(h) + 8, "hello");
	rt_stop(&R);
}

/* s = NULL: a string variable holds NULL, which sorts before "". */
TEST(null_string_variable)
{
	struct ib b;

	ib_init(&b);
	uint32_t e = ib_str(&b, "");
	uint32_t gs = ib_var(&b, MT_VS_GLOBAL, MT_VK_SCALAR,
			     MT_VF_REF | MT_VF_STRING, 32, 0);
	uint32_t one = K(&b, 1);
	/* gs = NULL; r3 = (gs < "") ? 1 : 0; if (gs == 0) r3 *= 4 */
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(STGS, gs, 0), RV(LDGS, gs, 1),
			     RV(SETS, e, 2), R(SCMP, 1, 2, 0), RB(BL, 6),
			     RB(BA, 7), RV(SETX, one, 3), R(TST, 1, 0, 0),
			     RB(BNE, 11), R(ADD, 3, 3, 3), R(ADD, 3, 3, 3),
			     R(RET, 0, 0, 3));
	CHECK_EQ_INT(eval(&b, d, 0), 4);
}

/* A bad load: no record for the clause, an error record, ERROR fires. */
TEST(safe_load_fault_fires_error)
{
	struct ib b;
	struct mt_rechdr *h;
	struct mt_errrec *er;

	ib_init(&b);
	uint32_t k = K(&b, 0x1000);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(SETX, k, 1), R(NOP, 0, 0, 0),
			     R(LDX, 1, 0, 2), R(RET, 0, 0, 2));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
	/* ERROR clause: trace(arg1..arg5) */
	ib_clause(&b, 2, 0, 40);
	for (uint32_t i = 1; i <= 5; i++) {
		uint32_t a = IB_DIFO(&b, MT_RT_INT,
				     RV(LDGS, MT_VAR_ARG0 + i, 1),
				     R(RET, 0, 0, 1));
		ib_action(&b, MT_ACT_TRACE, 0);
		ib_rec(&b, a, MT_REC_INT, 8 * (i - 1), 8, 0);
	}
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 0);
	CHECK_EQ_INT(rt_nrecs(&R), 2);
	h = rt_rec(&R, 0);
	CHECK_EQ_INT(h->epid, MT_EPID_ERROR);
	er = rt_data(h);
	CHECK_EQ_INT(er->epid, 1);
	CHECK_EQ_INT(er->action, 0);
	CHECK_EQ_INT(er->pc, 2);
	CHECK_EQ_INT(er->fault, MT_FLT_BADADDR);
	CHECK_EQ_INT(er->addr, 0x1000);
	h = rt_rec(&R, 1);
	CHECK_EQ_INT(h->epid, 2);
	uint64_t *args = rt_data(h);
	CHECK_EQ_INT(args[0], 1);		/* epid */
	CHECK_EQ_INT(args[1], 1);		/* action #1 */
	CHECK_EQ_INT(args[2], 8);		/* DIF offset */
	CHECK_EQ_INT(args[3], MT_FLT_BADADDR);
	CHECK_EQ_INT(args[4], 0x1000);
	CHECK_EQ_INT(rt_stat(&R)->errors, 1);
	rt_stop(&R);
}

/* A fault inside an ERROR clause is only counted (double error). */
TEST(double_error_counted)
{
	struct ib b;

	ib_init(&b);
	uint32_t bad = IB_DIFO(&b, MT_RT_INT, R(LDX, 0, 0, 1), R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, bad, MT_REC_INT, 0, 8, 0);
	ib_clause(&b, 2, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, bad, MT_REC_INT, 0, 8, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 0);
	CHECK_EQ_INT(rt_nrecs(&R), 1);
	CHECK_EQ_INT(rt_rec(&R, 0)->epid, MT_EPID_ERROR);
	CHECK_EQ_INT(rt_stat(&R)->errors, 1);
	CHECK_EQ_INT(rt_stat(&R)->dblerrors, 1);
	rt_stop(&R);
}

static int fault_of(struct ib *b, uint32_t d, uint64_t *addr)
{
	struct mt_rechdr *h;
	struct mt_errrec *er;
	int f;

	ib_clause(b, 0, d, 0);		/* as a predicate */
	if (rt_start(&R, b) != 0)
		return -1;
	rt_fire(&R, 0, 0);
	h = rt_rec(&R, 0);
	if (!h || h->epid != MT_EPID_ERROR) {
		rt_stop(&R);
		return 0;
	}
	er = rt_data(h);
	f = (int)er->fault;
	if (addr)
		*addr = er->addr;
	if (er->action != 0xffffffffu)
		f = -2;
	rt_stop(&R);
	return f;
}

TEST(faults)
{
	struct ib b;
	uint64_t addr;

	ib_init(&b);
	uint32_t k = K(&b, 7);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(SETX, k, 1), R(SDIV, 1, 0, 2),
			     R(RET, 0, 0, 2));
	CHECK_EQ_INT(fault_of(&b, d, NULL), MT_FLT_DIVZERO);

	/* misaligned load inside the runtime's own memory (strtab) */
	ib_init(&b);
	uint32_t s = ib_str(&b, "abcdefghijkl");
	uint32_t one = K(&b, 1);
	d = IB_DIFO(&b, MT_RT_INT, RV(SETS, s, 1), RV(SETX, one, 2),
		    R(ADD, 1, 2, 1), R(LDUW, 1, 0, 3), R(RET, 0, 0, 3));
	CHECK_EQ_INT(fault_of(&b, d, NULL), MT_FLT_BADALIGN);

	/* loads from the strtab are fine */
	ib_init(&b);
	s = ib_str(&b, "abcdefghijkl");
	d = IB_DIFO(&b, MT_RT_INT, RV(SETS, s, 1), R(LDUB, 1, 0, 3),
		    R(RET, 0, 0, 3));
	CHECK_EQ_INT(fault_of(&b, d, NULL), 0);

	/* a store outside scratch */
	ib_init(&b);
	s = ib_str(&b, "abcdefghijkl");
	d = IB_DIFO(&b, MT_RT_INT, RV(SETS, s, 1), R(STB, 1, 0, 1),
		    R(RET, 0, 0, 0));
	CHECK_EQ_INT(fault_of(&b, d, &addr), MT_FLT_BADADDR);

	/* alloca'd scratch is writable and loadable */
	ib_init(&b);
	uint32_t sz = K(&b, 16), v = K(&b, 99);
	d = IB_DIFO(&b, MT_RT_INT, RV(SETX, sz, 1), R(ALLOCS, 1, 0, 2),
		    RV(SETX, v, 3), R(STX, 3, 0, 2), R(LDX, 2, 0, 4),
		    R(SUB, 4, 3, 5), R(RET, 0, 0, 5));
	CHECK_EQ_INT(fault_of(&b, d, NULL), 0);

	/* just below an alloca'd region: not loadable */
	ib_init(&b);
	sz = K(&b, 16);
	uint32_t four = K(&b, 4);
	d = IB_DIFO(&b, MT_RT_INT, RV(SETX, sz, 1), R(ALLOCS, 1, 0, 2),
		    RV(SETX, four, 3), R(SUB, 2, 3, 2), R(LDUW, 2, 0, 4),
		    R(RET, 0, 0, 4));
	CHECK_EQ_INT(fault_of(&b, d, NULL), MT_FLT_BADADDR);

	/* alloca beyond the scratchsize option, though string room is left */
	ib_init(&b);
	b.opt.scratchsize = 64;
	sz = K(&b, 65);
	d = IB_DIFO(&b, MT_RT_INT, RV(SETX, sz, 1), R(ALLOCS, 1, 0, 2),
		    R(RET, 0, 0, 2));
	CHECK_EQ_INT(fault_of(&b, d, NULL), MT_FLT_NOSCRATCH);

	/* scratch exhaustion */
	ib_init(&b);
	sz = K(&b, 1 << 20);
	d = IB_DIFO(&b, MT_RT_INT, RV(SETX, sz, 1), R(ALLOCS, 1, 0, 2),
		    R(RET, 0, 0, 2));
	CHECK_EQ_INT(fault_of(&b, d, NULL), MT_FLT_NOSCRATCH);

	/* tuple stack overflow */
	ib_init(&b);
	mt_instr_t in[MT_TUPLE_MAX + 2];
	for (int i = 0; i <= MT_TUPLE_MAX; i++)
		in[i] = R(PUSHTV, MT_TT_INT, 0, 0);
	in[MT_TUPLE_MAX + 1] = R(RET, 0, 0, 0);
	d = ib_difo(&b, in, MT_TUPLE_MAX + 2, MT_RT_INT);
	CHECK_EQ_INT(fault_of(&b, d, NULL), MT_FLT_TUPOFLOW);
}

/* Scratch from an earlier clause is gone: loading from it faults. */
TEST(scratch_does_not_cross_clauses)
{
	struct ib b;

	ib_init(&b);
	uint32_t g = ib_var(&b, MT_VS_GLOBAL, MT_VK_SCALAR, 0, 8, 0);
	uint32_t sz = K(&b, 8);
	uint32_t d1 = IB_DIFO(&b, MT_RT_INT, RV(SETX, sz, 1), R(ALLOCS, 1, 0, 2),
			      RV(STGS, g, 2), R(RET, 0, 0, 0));
	uint32_t d2 = IB_DIFO(&b, MT_RT_INT, RV(LDGS, g, 1), R(LDUB, 1, 0, 2),
			      R(RET, 0, 0, 2));
	ib_clause(&b, 0, 0, 0);
	ib_action(&b, MT_ACT_DIFEXPR, 0);
	ib_rec(&b, d1, MT_REC_INT, 0, 0, 0);
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d2, MT_REC_INT, 0, 8, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 0);
	CHECK_EQ_INT(rt_nrecs(&R), 2);			/* clause 1, error */
	CHECK_EQ_INT(rt_rec(&R, 1)->epid, MT_EPID_ERROR);
	CHECK_EQ_INT(((struct mt_errrec *)rt_data(rt_rec(&R, 1)))->fault,
		     MT_FLT_BADADDR);
	rt_stop(&R);
}

TEST(exit_sets_state)
{
	struct ib b;

	ib_init(&b);
	uint32_t k = K(&b, 3);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(SETX, k, 1), R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_EXIT, 0);
	ib_rec(&b, d, MT_REC_INT, 0, 4, 0);
	ib_clause(&b, 0, 0, 0);		/* a later BEGIN clause: skipped */
	ib_clause(&b, 1, 0, 0);		/* END still fires */
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	CHECK_EQ_INT(R.cb->state, MT_CB_ACTIVE);
	rt_fire(&R, 0, 0);
	CHECK_EQ_INT(R.cb->state, MT_CB_EXITING);
	CHECK_EQ_INT(R.cb->exit_status, 3);
	CHECK_EQ_INT(rt_nrecs(&R), 1);
	rt_fire(&R, 3, 0);		/* a tick: no longer fires */
	CHECK_EQ_INT(rt_nrecs(&R), 1);
	rt_fire(&R, 1, 0);
	CHECK_EQ_INT(rt_nrecs(&R), 2);
	rt_stop(&R);
}

TEST(predicate_false_records_nothing)
{
	struct ib b;

	ib_init(&b);
	uint32_t p = IB_DIFO(&b, MT_RT_INT, R(RET, 0, 0, 0));
	ib_clause(&b, 0, p, 0);
	ib_clause(&b, 0, 0, 0);		/* empty clause: a bare record */
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 0);
	CHECK_EQ_INT(rt_nrecs(&R), 1);
	CHECK_EQ_INT(rt_rec(&R, 0)->epid, 2);
	rt_stop(&R);
}

MT_TEST_MAIN()
