/*
 * The probe compiler (jit/): DIFOs compiled for the host run in an
 * executable buffer and must give the interpreter's values; probes in
 * the bench's shapes compile, and the checker accepts what the compiler
 * emits and refuses code that jumps backward, stores outside the state
 * area or calls something else than the runtime.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "../mt_test.h"
#include "tests/lib/rtimg.h"
#include "jit/jit.h"
#include "machtrace/jitabi.h"

static struct rtrun R;

/* The interpreter's value of DIFO d with arg0 = a (traced from BEGIN). */
static int64_t interp(struct ib *b, uint32_t d, uint64_t a, int *ok)
{
	struct mt_rechdr *h;
	int64_t v = 0;

	ib_clause(b, 0, 0, 8);
	ib_action(b, MT_ACT_TRACE, 0);
	ib_rec(b, d, MT_REC_INT, 0, 8, 0);
	*ok = 0;
	if (rt_start(&R, b) != 0)
		return 0;
	rt_fire(&R, 0, a);
	h = rt_rec(&R, 0);
	if (h && h->epid != MT_EPID_ERROR) {
		v = *(int64_t *)rt_data(h);
		*ok = 1;
	}
	rt_stop(&R);
	return v;
}

/* The compiled DIFO's value, run on the host; *ok 0 if not compiled. */
static int64_t compiled(struct ib *b, uint32_t d, uint64_t a, int *ok)
{
	struct mt_image *img = ib_build(b);
	struct jit_code c;
	char why[200];
	uint64_t args[MT_NARGS] = { a };
	int64_t v = 0;
	void *x;

	*ok = 0;
	if (mt_jit_difo_host(img, d, &c, why, sizeof why) != 1) {
		printf("# not compiled: %s\n", why);
		free(img);
		return 0;
	}
	x = mmap(NULL, c.b.len, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x != MAP_FAILED) {
		memcpy(x, c.b.code, c.b.len);
		v = (int64_t)((uint64_t (*)(const uint64_t *))x)(args);
		munmap(x, c.b.len);
		*ok = 1;
	}
	mt_jit_free(&c);
	free(img);
	return v;
}

/* Both engines on the DIFO built by mk(b, k) for arg0 = a: equal? */
static int same(uint32_t (*mk)(struct ib *, int), int k, uint64_t a)
{
	struct ib b1, b2;
	int ok1, ok2;
	int64_t v1, v2;

	ib_init(&b1);
	ib_init(&b2);
	v1 = compiled(&b1, mk(&b1, k), a, &ok1);
	v2 = interp(&b2, mk(&b2, k), a, &ok2);
	if (!ok1 || !ok2 || v1 != v2)
		printf("# k=%d arg0=%lld: compiled %lld (%d), interpreter %lld (%d)\n", k,
		       (long long)a, (long long)v1, ok1, (long long)v2, ok2);
	return ok1 && ok2 && v1 == v2;
}

static const int binops[] = {
	MT_OP_ADD, MT_OP_SUB, MT_OP_MUL, MT_OP_AND, MT_OP_OR, MT_OP_XOR, MT_OP_SLL,
	MT_OP_SRL, MT_OP_SRA, MT_OP_NOT, MT_OP_MOV
};
static const uint64_t vals[] = {
	0, 1, 2, 7, 63, 64, 0xdeadbeef, 0x7fffffffffffffffull, 0x8000000000000000ull,
	(uint64_t)-1, (uint64_t)-5, 0x123456789abcull
};
#define N(a) (sizeof a / sizeof *a)

/* r1 = 13 (or -3), r2 = arg0, r3 = r1 op r2 (and r3 op= r2 again). */
static uint32_t mk_binop(struct ib *b, int k)
{
	uint32_t c = ib_int(b, (uint64_t)(k & 1 ? -3 : 13));
	int op = binops[(k >> 1) % (int)N(binops)];

	return IB_DIFO(b, MT_RT_INT, RV(SETX, c, 1), RV(LDGS, MT_VAR_ARG0, 2),
		       MT_INSTR(op, 1, 2, 3), MT_INSTR(op, 3, 2, 3), R(RET, 0, 0, 3));
}

TEST(difo_alu_as_interpreter)
{
	for (int k = 0; k < 2 * (int)N(binops); k++)
		for (size_t i = 0; i < N(vals); i++)
			CHECK(same(mk_binop, k, vals[i]));
}

static const int branches[] = {
	MT_OP_BE, MT_OP_BNE, MT_OP_BG, MT_OP_BGU, MT_OP_BGE, MT_OP_BGEU, MT_OP_BL,
	MT_OP_BLU, MT_OP_BLE, MT_OP_BLEU
};

/* 1 if (7 or -7) <branch> arg0 (CMP), or the same after TST arg0. */
static uint32_t mk_branch(struct ib *b, int k)
{
	uint32_t c = ib_int(b, (uint64_t)(k & 1 ? -7 : 7)), one = ib_int(b, 1);
	int br = branches[(k >> 2) % (int)N(branches)];
	mt_instr_t cmp = k & 2 ? R(TST, 2, 0, 0) : R(CMP, 1, 2, 0);

	return IB_DIFO(b, MT_RT_INT, RV(SETX, c, 1), RV(LDGS, MT_VAR_ARG0, 2), cmp,
		       MT_INSTR_BR(br, 6), R(MOV, 0, 0, 3), MT_INSTR_BR(MT_OP_BA, 7),
		       RV(SETX, one, 3), R(RET, 0, 0, 3));
}

TEST(difo_branches_as_interpreter)
{
	static const uint64_t v[] = { 0, 7, (uint64_t)-7, 8, (uint64_t)-8, 6,
				      0x8000000000000000ull };
	for (int k = 0; k < 4 * (int)N(branches); k++)
		for (size_t i = 0; i < N(v); i++)
			CHECK(same(mk_branch, k, v[i]));
}

/* A register read on a path that did not write it is 0, as the
   interpreter's. */
static uint32_t mk_unset(struct ib *b, int k)
{
	return IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), R(TST, 1, 0, 0),
		       MT_INSTR_BR(MT_OP_BE, 4), R(MOV, 1, 0, 4), R(ADD, 4, 1, 4),
		       R(RET, 0, 0, 4));
}

TEST(difo_unset_register_reads_zero)
{
	CHECK(same(mk_unset, 0, 0));
	CHECK(same(mk_unset, 0, 21));
}

/* The bench's clauses on probe 0 (as an fbt entry); returns the image. */
static struct mt_image *shape(struct ib *b, int k)
{
	uint32_t a0 = IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), R(RET, 0, 0, 1));
	uint32_t a1 = IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_ARG1, 1), R(RET, 0, 0, 1));
	uint32_t pf = IB_DIFO(b, MT_RT_STRING, RV(LDGS, MT_VAR_PROBEFUNC, 1), R(RET, 0, 0, 1));
	uint32_t ex = IB_DIFO(b, MT_RT_STRING, RV(LDGS, MT_VAR_EXECNAME, 1), R(RET, 0, 0, 1));
	uint32_t dead = ib_int(b, 0xdeadbeef), one = ib_int(b, 1);
	uint32_t pred = IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), RV(SETX, dead, 2),
				R(CMP, 1, 2, 0), MT_INSTR_BR(MT_OP_BE, 6), R(MOV, 0, 0, 1),
				MT_INSTR_BR(MT_OP_BA, 7), RV(SETX, one, 1), R(RET, 0, 0, 1));
	uint32_t s = ib_str(b, "machload");
	uint32_t epred = IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_EXECNAME, 1), RV(SETS, s, 2),
				 R(SCMP, 1, 2, 0), MT_INSTR_BR(MT_OP_BE, 6), R(MOV, 0, 0, 1),
				 MT_INSTR_BR(MT_OP_BA, 7), RV(SETX, one, 1), R(RET, 0, 0, 1));
	uint32_t ts = ib_var(b, MT_VS_THREAD, MT_VK_SCALAR, 0, 8, 0);
	uint32_t set = IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_TIMESTAMP, 1), RV(STTS, ts, 1),
			       R(RET, 0, 0, 1));
	uint32_t get = IB_DIFO(b, MT_RT_INT, RV(LDTS, ts, 1), R(RET, 0, 0, 1));
	uint32_t lat = IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_TIMESTAMP, 1), RV(LDTS, ts, 2),
			       R(SUB, 1, 2, 1), R(RET, 0, 0, 1));
	uint32_t ag;

	switch (k) {
	case 0:			/* @ = count() */
		ag = ib_agg(b, MT_AGG_COUNT, 0, 8, 1, 0, 0, 0, 0);
		ib_clause(b, 0, 0, 0);
		b->clauses[b->nclauses - 1].flags = 0;
		ib_action(b, MT_ACT_AGG, ag);
		break;
	case 1:			/* /arg0 == 0xdeadbeef/ @ = count() */
		ag = ib_agg(b, MT_AGG_COUNT, 0, 8, 1, 0, 0, 0, 0);
		ib_clause(b, 0, pred, 0);
		b->clauses[b->nclauses - 1].flags = 0;
		ib_action(b, MT_ACT_AGG, ag);
		break;
	case 2:			/* @[probefunc] = count() */
		ag = ib_agg(b, MT_AGG_COUNT, 1, 8 + 32, 1, 0, 0, 0, 0);
		ib_clause(b, 0, 0, 0);
		b->clauses[b->nclauses - 1].flags = 0;
		ib_action(b, MT_ACT_AGG, ag);
		ib_rec(b, pf, MT_REC_STR, 0, 32, 0);
		break;
	case 3:			/* printf("%d %d\n", arg0, arg1) */
		ib_clause(b, 0, 0, 16);
		ib_action(b, MT_ACT_PRINTF, 0);
		ib_rec(b, a0, MT_REC_INT, 0, 8, 0);
		ib_rec(b, a1, MT_REC_INT, 8, 8, 0);
		break;
	case 4:			/* /execname == "machload"/ @[execname] = sum(arg0) */
		ag = ib_agg(b, MT_AGG_SUM, 1, 8 + 32, 1, 0, 0, 0, 0);
		ib_clause(b, 0, epred, 0);
		b->clauses[b->nclauses - 1].flags = 0;
		ib_action(b, MT_ACT_AGG, ag);
		ib_rec(b, ex, MT_REC_STR, 0, 32, 0);
		ib_rec(b, a0, MT_REC_INT, 0, 8, MT_RF_AGGVAL);
		break;
	case 5:			/* self->ts = timestamp; /self->ts/ @ = quantize(..) */
		ib_clause(b, 0, 0, 0);
		b->clauses[b->nclauses - 1].flags = 0;
		ib_action(b, MT_ACT_DIFEXPR, 0);
		ib_rec(b, set, MT_REC_INT, 0, 0, 0);
		ag = ib_agg(b, MT_AGG_QUANTIZE, 0, 8, MT_QUANTIZE_NBUCKETS, 0, 0, 0, 0);
		ib_clause(b, 0, get, 0);
		b->clauses[b->nclauses - 1].flags = 0;
		ib_action(b, MT_ACT_AGG, ag);
		ib_rec(b, lat, MT_REC_INT, 0, 8, MT_RF_AGGVAL);
		break;
	case 7: {		/* @[(char)arg1] = sum(arg0): a key needing rcx */
		uint32_t c56 = ib_int(b, 56);
		uint32_t key = IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_ARG1, 1), RV(SETX, c56, 2),
				       R(SLL, 1, 2, 1), R(SRA, 1, 2, 1), R(RET, 0, 0, 1));
		ag = ib_agg(b, MT_AGG_SUM, 1, 16, 1, 0, 0, 0, 0);
		ib_clause(b, 0, 0, 0);
		b->clauses[b->nclauses - 1].flags = 0;
		ib_action(b, MT_ACT_AGG, ag);
		ib_rec(b, key, MT_REC_INT, 0, 8, MT_RF_SIGNED);
		ib_rec(b, a0, MT_REC_INT, 0, 8, MT_RF_AGGVAL);
		break;
	}
	case 8: {		/* trace(*(int *)arg0): a safe load */
		uint32_t ld = IB_DIFO(b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), R(LDSW, 1, 0, 2),
				      R(RET, 0, 0, 2));
		ib_clause(b, 0, 0, 8);
		ib_action(b, MT_ACT_TRACE, 0);
		ib_rec(b, ld, MT_REC_INT, 0, 8, 0);
		break;
	}
	case 10:		/* trace(execname): a string record */
		ib_clause(b, 0, 0, 256);
		ib_action(b, MT_ACT_TRACE, 0);
		ib_rec(b, ex, MT_REC_STR, 0, 256, 0);
		break;
	case 11: {		/* trace(stringof(args[1]->pr_fname)): a
				   subroutine's string copied by stringof */
		uint32_t c16 = ib_int(b, 16);
		uint32_t fn = IB_DIFO(b, MT_RT_STRING, RV(LDGS, MT_VAR_ARG1, 1), RV(PUSHTV, 0, 1),
				      RV(CALL, MT_SUBR_MACH_EXECNAME, 1), RV(SETX, c16, 2),
				      R(ALLOCS, 2, 0, 3), R(COPYS, 1, 2, 3), R(RET, 0, 0, 3));
		ib_clause(b, 0, 0, 8 + 256);
		ib_action(b, MT_ACT_TRACE, 0);
		ib_rec(b, a0, MT_REC_INT, 0, 8, 0);
		ib_rec(b, fn, MT_REC_STR, 8, 256, 0);
		break;
	}
	default:		/* min and max of arg1 */
		ag = ib_agg(b, MT_AGG_MIN, 0, 8, 1, 0, 0, 0, 0);
		ib_clause(b, 0, 0, 0);
		b->clauses[b->nclauses - 1].flags = 0;
		ib_action(b, MT_ACT_AGG, ag);
		ib_rec(b, a1, MT_REC_INT, 0, 8, MT_RF_AGGVAL);
		ag = ib_agg(b, MT_AGG_MAX, 0, 8, 1, 0, 0, 0, 0);
		ib_action(b, MT_ACT_AGG, ag);
		ib_rec(b, a1, MT_REC_INT, 0, 8, MT_RF_AGGVAL);
		break;
	}
	b->probes[0].kind = MT_PK_FBT_ENTRY;
	return ib_build(b);
}

TEST(bench_shapes_compile_and_pass_the_checker)
{
	for (int k = 0; k < 12; k++) {
		struct ib b;
		struct jit_code c;
		struct jit_opts o = { .site = k == 5 ? JIT_SITE_RETURN : JIT_SITE_ENTRY };
		struct mt_image *img;
		char why[200] = "";
		int rc;

		ib_init(&b);
		img = shape(&b, k);
		rc = mt_jit_probe(img, 0, &o, &c, why, sizeof why);
		if (rc != 1)
			printf("# shape %d: %s\n", k, why);
		CHECK_EQ_INT(rc, 1);
		rc = mt_jit_check(&c, why, sizeof why);
		if (rc != 0)
			printf("# shape %d: %s\n", k, why);
		CHECK_EQ_INT(rc, 0);
		mt_jit_free(&c);
		free(img);
	}
}

TEST(uncompilable_probe_keeps_the_interpreter)
{
	struct ib b;
	struct jit_code c;
	struct jit_opts o = { .site = JIT_SITE_ENTRY };
	struct mt_image *img;
	char why[200] = "";
	uint32_t d;

	ib_init(&b);
	d = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), R(ALLOCS, 1, 0, 2), R(RET, 0, 0, 2));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
	img = ib_build(&b);
	CHECK_EQ_INT(mt_jit_probe(img, 0, &o, &c, why, sizeof why), 0);
	CHECK(strstr(why, "instruction") != NULL);
	free(img);
}

/* A record larger than the checker lets the code write (seventeen
   256-byte strings) keeps the interpreter rather than emitting code the
   checker refuses. */
TEST(record_too_large_keeps_the_interpreter)
{
	struct ib b;
	struct jit_code c;
	struct jit_opts o = { .site = JIT_SITE_ENTRY };
	struct mt_image *img;
	char why[200] = "";
	uint32_t ex;

	ib_init(&b);
	ex = IB_DIFO(&b, MT_RT_STRING, RV(LDGS, MT_VAR_EXECNAME, 1), R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 17 * 256);
	ib_action(&b, MT_ACT_PRINTF, 0);
	for (uint32_t i = 0; i < 17; i++)
		ib_rec(&b, ex, MT_REC_STR, 256 * i, 256, 0);
	img = ib_build(&b);
	CHECK_EQ_INT(mt_jit_probe(img, 0, &o, &c, why, sizeof why), 0);
	CHECK(strstr(why, "record of more than") != NULL);
	free(img);
}

/* mach_execname()'s string holds the runtime's scratch until a record
   or a key takes it: one the DIFO drops, as (mach_execname(arg0), 1)
   does, keeps the interpreter. */
TEST(dropped_subroutine_string_keeps_the_interpreter)
{
	struct ib b;
	struct jit_code c;
	struct jit_opts o = { .site = JIT_SITE_ENTRY };
	struct mt_image *img;
	char why[200] = "";
	uint32_t d, one;

	ib_init(&b);
	one = ib_int(&b, 1);
	d = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), RV(PUSHTV, 0, 1),
		    RV(CALL, MT_SUBR_MACH_EXECNAME, 1), RV(SETX, one, 1), R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
	img = ib_build(&b);
	CHECK_EQ_INT(mt_jit_probe(img, 0, &o, &c, why, sizeof why), 0);
	CHECK(strstr(why, "subroutine's string") != NULL);
	free(img);
}

/* @[stack()] = count() needs the firing's frame, which the runtime
   helper an aggregation would run through does not have. */
TEST(aggregation_needing_the_frame_keeps_the_interpreter)
{
	struct ib b;
	struct jit_code c;
	struct jit_opts o = { .site = JIT_SITE_ENTRY };
	struct mt_image *img;
	char why[200] = "";
	uint32_t ag;

	ib_init(&b);
	ag = ib_agg(&b, MT_AGG_COUNT, 1, 8 + 64, 1, 0, 0, 0, 0);
	ib_clause(&b, 0, 0, 0);
	b.clauses[b.nclauses - 1].flags = 0;
	ib_action(&b, MT_ACT_AGG, ag);
	ib_rec(&b, 0, MT_REC_STACK, 0, 64, 0);
	img = ib_build(&b);
	CHECK_EQ_INT(mt_jit_probe(img, 0, &o, &c, why, sizeof why), 0);
	CHECK(strstr(why, "context") != NULL);
	free(img);
}

/* A kernel site's loads check the platform's loadable ranges inline
   (two ranges, base and limit each: four relocations a load) before the
   runtime's safe load; a local site has no such ranges and calls it. */
TEST(kernel_site_loads_check_the_loadable_ranges_inline)
{
	static const int ops[] = { MT_OP_LDSB, MT_OP_LDSH, MT_OP_LDSW, MT_OP_LDUB,
				   MT_OP_LDUH, MT_OP_LDUW, MT_OP_LDX };
	static const enum jit_site sites[] = { JIT_SITE_ENTRY, JIT_SITE_RETURN, JIT_SITE_LOCAL };

	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
		for (size_t s = 0; s < sizeof sites / sizeof *sites; s++) {
			struct ib b;
			struct jit_code c;
			struct jit_opts o = { .site = sites[s] };
			struct mt_image *img;
			char why[200] = "";
			uint32_t d, n = 0;

			ib_init(&b);
			d = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG1, 1),
				    MT_INSTR(ops[k], 1, 0, 2), R(RET, 0, 0, 2));
			ib_clause(&b, 0, 0, 8);
			ib_action(&b, MT_ACT_TRACE, 0);
			ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
			img = ib_build(&b);
			CHECK_EQ_INT(mt_jit_probe(img, 0, &o, &c, why, sizeof why), 1);
			for (uint32_t i = 0; i < c.b.nrel; i++)
				n += c.b.rel[i].kind == MT_JR_PLAT_LOADABLE;
			CHECK_EQ_INT(n, sites[s] == JIT_SITE_LOCAL ? 0 : 2 * MT_JIT_NLOADABLE);
			CHECK_EQ_INT(mt_jit_check(&c, why, sizeof why), 0);
			mt_jit_free(&c);
			free(img);
		}
	}
}

/* An aggregation keyed by integers (and constant strings or execname)
   alone tries the aggregation's last entry (its MT_JR_AGGENT word)
   inline, and finds its entry through MT_JH_INTKEYS (count: updated in
   place) or MT_JH_AGGUPD (avg: updated by the runtime), never
   MT_JH_AGGVALS. */
TEST(intkeys_aggregation_calls_intkeys)
{
	for (int k = 0; k < 4; k++) {
		int avg = k == 1, str = k >= 2, exe = k == 3;
		uint32_t ssz = exe ? MT_JIT_PLATNAME : 16;
		struct ib b;
		struct jit_code c;
		struct jit_opts o = { .site = JIT_SITE_ENTRY };
		struct mt_image *img;
		char why[200] = "";
		uint32_t ag, d0, d1, n[MT_JH__COUNT] = { 0 }, aggent = 0;

		ib_init(&b);
		ag = ib_agg(&b, avg ? MT_AGG_AVG : MT_AGG_COUNT, 2, str ? 16 + ssz : 24,
			    avg ? 2 : 1, 0, 0, 0, 0);
		d0 = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), R(RET, 0, 0, 1));
		d1 = exe ? IB_DIFO(&b, MT_RT_STRING, RV(LDGS, MT_VAR_EXECNAME, 1),
				   R(RET, 0, 0, 1)) :
			str ? IB_DIFO(&b, MT_RT_STRING, RV(SETS, ib_str(&b, "msgs"), 1),
				   R(RET, 0, 0, 1)) :
			IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG1, 1), R(RET, 0, 0, 1));
		ib_clause(&b, 0, 0, 0);
		b.clauses[b.nclauses - 1].flags = 0;
		ib_action(&b, MT_ACT_AGG, ag);
		ib_rec(&b, d0, MT_REC_INT, 0, 8, 0);
		ib_rec(&b, d1, str ? MT_REC_STR : MT_REC_INT, 8, str ? ssz : 8, 0);
		if (avg)
			ib_rec(&b, d1, MT_REC_INT, 16, 8, MT_RF_AGGVAL);
		img = ib_build(&b);
		CHECK_EQ_INT(mt_jit_probe(img, 0, &o, &c, why, sizeof why), 1);
		for (uint32_t i = 0; i < c.b.nrel; i++) {
			if (c.b.rel[i].kind == MT_JR_HELPER && c.b.rel[i].arg < MT_JH__COUNT)
				n[c.b.rel[i].arg]++;
			aggent += c.b.rel[i].kind == MT_JR_AGGENT && c.b.rel[i].arg == ag;
		}
		CHECK_EQ_INT(n[MT_JH_INTKEYS], avg ? 0 : 1);
		CHECK_EQ_INT(n[MT_JH_AGGUPD], avg ? 1 : 0);
		CHECK_EQ_INT(n[MT_JH_AGGVALS], 0);
		CHECK_EQ_INT(aggent, 1);
		CHECK_EQ_INT(mt_jit_check(&c, why, sizeof why), 0);
		mt_jit_free(&c);
		free(img);
	}
}

/* Hand-made code for the checker. */
static int check_bytes(const uint8_t *p, uint32_t n, int rel_at, uint16_t kind)
{
	struct jit_code c;
	char why[200];
	int rc;

	jit_buf_init(&c.b);
	for (uint32_t i = 0; i < n; i++) {
		if (rel_at >= 0 && i == (uint32_t)rel_at) {
			x_rel32(&c.b, kind, 0, 0);
			i += 3;
			continue;
		}
		x_byte(&c.b, p[i]);
	}
	rc = mt_jit_check(&c, why, sizeof why);
	jit_buf_free(&c.b);
	return rc;
}

TEST(checker_refuses_what_the_compiler_must_not_emit)
{
	static const uint8_t back[] = { 0x90, 0xeb, 0xfd };		/* jmp back */
	static const uint8_t store[] = { 0x48, 0x89, 0x04, 0x25, 0, 0, 0, 0 };	/* mov [abs], rax */
	static const uint8_t call[] = { 0xe8, 0, 0, 0, 0 };
	static const uint8_t store_rbx[] = { 0x48, 0x89, 0x03 };	/* mov [rbx], rax */
	static const uint8_t ind[] = { 0xff, 0xe0 };			/* jmp rax */
	static const uint8_t ret[] = { 0xc3, 0x90 };

	CHECK(check_bytes(back, sizeof back, -1, 0) < 0);
	CHECK(check_bytes(store, sizeof store, -1, 0) < 0);
	CHECK(check_bytes(store, sizeof store, 4, MT_JR_STRTAB) < 0);
	CHECK(check_bytes(store, sizeof store, 4, MT_JR_CPUBUF) == 0);
	CHECK(check_bytes(call, sizeof call, -1, 0) < 0);
	CHECK(check_bytes(call, sizeof call, 1, MT_JR_HELPER) == 0);
	CHECK(check_bytes(store_rbx, sizeof store_rbx, -1, 0) < 0);
	CHECK(check_bytes(ind, sizeof ind, -1, 0) < 0);
	CHECK(check_bytes(ret, sizeof ret, -1, 0) < 0);
}

TEST(emitter_refuses_a_backward_jump)
{
	struct jit_buf b;
	uint32_t l;

	jit_buf_init(&b);
	l = jit_label_new(&b);
	jit_label_here(&b, l);
	x_jmp(&b, l);
	CHECK(jit_buf_finish(&b) < 0);
	jit_buf_free(&b);
}

MT_TEST_MAIN()
