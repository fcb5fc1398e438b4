/*
 * Random bytecode: whatever the verifier accepts must run without
 * crashing -- every bad address, size or index becomes a fault.  A fixed
 * seed keeps the test deterministic.
 */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"

static uint64_t seed = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (uint32_t)(seed % n);
}

/* Interesting values for SETX: small, huge, aligned, misaligned. */
static const uint64_t vals[] = {
	0, 1, 2, 7, 8, 64, 255, 4096, 0xffffffffull, 0x8000000000000000ull,
	UINT64_MAX, UINT64_MAX - 7, 0x1000, 0x7fffffffffffffffull, 12345,
};

static mt_instr_t random_instr(struct ib *b, uint32_t pc, uint32_t n,
			       uint32_t gvar, uint32_t avar, uint32_t tvar)
{
	uint32_t op = 1 + rnd(MT_OP__COUNT - 1);
	uint32_t r1 = rnd(MT_NREGS), r2 = rnd(MT_NREGS), rd = rnd(MT_NREGS);

	switch (op) {
	case MT_OP_BA: case MT_OP_BE: case MT_OP_BNE: case MT_OP_BG:
	case MT_OP_BGU: case MT_OP_BGE: case MT_OP_BGEU: case MT_OP_BL:
	case MT_OP_BLU: case MT_OP_BLE: case MT_OP_BLEU:
		return MT_INSTR_BR(op, pc + 1 + rnd(n - 1 - pc));
	case MT_OP_RET:
		return MT_INSTR(MT_OP_NOP, 0, 0, 0);
	case MT_OP_SETX:
		return MT_INSTR_V16(op, ib_int(b, vals[rnd(sizeof(vals) / 8)]), rd);
	case MT_OP_SETS:
		return MT_INSTR_V16(op, rnd(b->strtab_size), rd);
	case MT_OP_LDGS:
		return MT_INSTR_V16(op, rnd(2) ? gvar : MT_VAR_CURTHREAD +
				    rnd(MT_VAR_BUILTIN_END - MT_VAR_CURTHREAD), rd);
	case MT_OP_STGS:
		return MT_INSTR_V16(op, gvar, rd);
	case MT_OP_LDTS: case MT_OP_STTS:
		return MT_INSTR_V16(op, tvar, rd);
	case MT_OP_LDGAA: case MT_OP_STGAA:
		return MT_INSTR_V16(op, avar, rd);
	case MT_OP_LDTAA: case MT_OP_STTAA: case MT_OP_LDLS: case MT_OP_STLS:
		return MT_INSTR(MT_OP_NOP, 0, 0, 0);
	case MT_OP_LDGA:
		return MT_INSTR(op, rnd(3), r2, rd);
	case MT_OP_CALL:
		return MT_INSTR_V16(op, rnd(MT_SUBR__COUNT), rd);
	case MT_OP_PUSHTR: case MT_OP_PUSHTV:
		return MT_INSTR(op, rnd(3), r2, rd);
	default:
		return MT_INSTR(op, r1, r2, rd);
	}
}

TEST(random_programs_never_crash)
{
	int accepted = 0, faulted = 0;

	for (int iter = 0; iter < 3000; iter++) {
		struct ib b;
		struct rtrun r;
		mt_instr_t in[24];
		uint32_t n = 2 + rnd(22);

		ib_init(&b);
		b.opt.strsize = 16 + rnd(64);
		ib_str(&b, "hello world");
		ib_str(&b, "/a/b/../c");
		uint32_t g = ib_var(&b, MT_VS_GLOBAL, MT_VK_SCALAR,
				    rnd(2) ? MT_VF_REF | MT_VF_STRING : 0, 16, 0);
		uint32_t a = ib_var(&b, MT_VS_GLOBAL, MT_VK_ASSOC, 0, 8, 24);
		uint32_t t = ib_var(&b, MT_VS_THREAD, MT_VK_SCALAR, 0, 8, 0);
		for (uint32_t pc = 0; pc + 1 < n; pc++)
			in[pc] = random_instr(&b, pc, n, g, a, t);
		in[n - 1] = R(RET, 0, 0, rnd(MT_NREGS));
		uint32_t d = ib_difo(&b, in, n, rnd(2) ? MT_RT_STRING : MT_RT_INT);
		ib_clause(&b, 0, rnd(4) ? 0 : d, 24);
		ib_action(&b, MT_ACT_TRACE, 0);
		ib_rec(&b, d, rnd(2) ? MT_REC_STR : MT_REC_INT, 0, rnd(2) ? 8 : 16, 0);
		ib_action(&b, MT_ACT_AGG, ib_agg(&b, MT_AGG_QUANTIZE, 1, 16,
						 127, 0, 0, 0, 0));
		ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
		ib_rec(&b, d, MT_REC_INT, 0, 8, MT_RF_AGGVAL);
		if (rt_start(&r, &b) == 0) {
			accepted++;
			for (int k = 0; k < 3; k++)
				rt_fire(&r, 0, vals[rnd(sizeof(vals) / 8)]);
			faulted += rt_stat(&r)->errors != 0;
		}
		rt_stop(&r);
	}
	CHECK(accepted > 2000);
	CHECK(faulted > 100);
}

MT_TEST_MAIN()
