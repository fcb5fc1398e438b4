/*
 * llquantize()'s bin in compiled code (jit_int.h), in the dtrace-utils
 * layout the compiler gives it, as machtrace/quantize.h's
 * mt_llquantize_bin computes it, its constants worked out here: |v|
 * below factor^lmag is the underflow bin; in magnitude mag (|v| below
 * max = factor^(mag + 1)) m = (mag - lmag) * per + |v| / (max / steps)
 * - steps / factor + 1 (|v| * steps / max for magnitude 0); past hmag
 * the overflow bin; the bin is under + m, or under - m for v < 0.
 */
#include "jit/jit_int.h"
#include "machtrace/quantize.h"

int jit_llq_plan(const struct mt_agg *a, struct jit_llq *q)
{
	uint16_t f = (uint16_t)a->param[0], lo = (uint16_t)a->param[1],
		hi = (uint16_t)a->param[2], st = (uint16_t)a->param[3];
	uint64_t per, max;

	if (a->func != MT_AGG_LLQUANTIZE || !mt_llquantize_signed(a) || f < 2 || hi < lo ||
	    hi - lo + 1 > JIT_LLQ_MAXORD || st == 0 || st < f)
		return 0;
	per = st - st / f;
	q->sf = st / f;
	q->steps = st;
	q->lmag = lo;
	q->under = 1 + (uint64_t)(hi - lo + 1) * per;
	q->over = (uint64_t)(hi - lo + 1) * per + 1;
	q->first = max = mt_llq_pow(f, lo);
	if (q->under + q->over >= a->nvals || q->under > 0x7fffffff)
		return 0;
	for (q->n = 0; q->n < (uint32_t)(hi - lo + 1); q->n++) {
		uint32_t k = q->n;

		if (max > UINT64_MAX / f)
			return 0;
		max *= f;
		q->max[k] = max;
		q->width[k] = max / st;
		q->m0[k] = (uint64_t)k * per + 1;
	}
	return 1;
}

/* m of magnitude k from |v| in rax, into rax (rcx and rdx clobbered),
   then to done. */
static void mag_m(struct jit_buf *b, const struct jit_llq *q, uint32_t k, uint32_t done)
{
	if (q->lmag + k == 0) {		/* |v| * steps / max */
		x_imul_ri(b, X_RAX, X_RAX, (int32_t)q->steps);
		x_mov_ri(b, X_RCX, q->max[k]);
	} else {
		x_mov_ri(b, X_RCX, q->width[k]);
	}
	x_mov_ri(b, X_RDX, 0);
	x_div(b, X_RCX, 0);
	x_alu_ri(b, A_SUB, X_RAX, (int32_t)q->sf);
	x_alu_ri(b, A_ADD, X_RAX, (int32_t)q->m0[k]);
	x_jmp(b, done);
}

void jit_llq_bucket(struct jit_buf *b, const struct jit_llq *q)
{
	uint32_t pos = jit_label_new(b), under = jit_label_new(b), have = jit_label_new(b);
	uint32_t plus = jit_label_new(b), done = jit_label_new(b), at[JIT_LLQ_MAXORD];

	x_push(b, X_RAX);
	x_push(b, X_RCX);
	x_mov_rr(b, X_RAX, X_RCX);		/* |v| as unsigned */
	x_test_rr(b, X_RAX, X_RAX);
	x_jcc(b, CC_NS, pos);
	x_neg(b, X_RAX);
	jit_label_here(b, pos);
	x_mov_ri(b, X_RDX, q->first);
	x_alu_rr(b, A_CMP, X_RAX, X_RDX);
	x_jcc(b, CC_B, under);
	for (uint32_t k = 0; k < q->n; k++) {
		at[k] = jit_label_new(b);
		x_mov_ri(b, X_RDX, q->max[k]);
		x_alu_rr(b, A_CMP, X_RAX, X_RDX);
		x_jcc(b, CC_B, at[k]);
	}
	x_mov_ri(b, X_RAX, q->over);
	x_jmp(b, have);
	for (uint32_t k = 0; k < q->n; k++) {
		jit_label_here(b, at[k]);
		mag_m(b, q, k, have);
	}
	jit_label_here(b, have);		/* rax = m; the sign of v at [rsp] */
	x_load_m(b, 8, X_RCX, (struct x_mem){ X_RSP, 0, 0, 0 });
	x_test_rr(b, X_RCX, X_RCX);
	x_jcc(b, CC_NS, plus);
	x_neg(b, X_RAX);
	jit_label_here(b, plus);
	x_alu_ri(b, A_ADD, X_RAX, (int32_t)q->under);
	x_mov_rr(b, X_RDX, X_RAX);
	x_jmp(b, done);
	jit_label_here(b, under);
	x_mov_ri(b, X_RDX, q->under);
	jit_label_here(b, done);
	x_pop(b, X_RCX);
	x_pop(b, X_RAX);
}
