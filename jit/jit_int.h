/* The probe compiler's shared state (jit/dif.c, jit/probe.c). */
#ifndef MT_JIT_INT_H
#define MT_JIT_INT_H

#include "jit/jit.h"
#include "machtrace/jitabi.h"

/* The x86 registers DIF registers live in: callee-saved, so that they
   survive the runtime helpers' calls. */
#define JIT_NPOOL 6

struct jit {
	const struct mt_image *img;
	struct mt_image_tabs t;		/* img's tables */
	struct jit_buf *b;
	struct jit_opts o;
	uint32_t probe, epid;
	/* the frame: saved[r] = rsp offset + 1 of register r's saved value
	   (0: not saved, so not clobbered), ts_off the timestamp slot */
	uint32_t saved[16];
	int32_t ts_off;
	int32_t val_off;		/* an aggregation's value kept over its key */
	int32_t el_off;			/* the firing's elapsed-time argument
					   (MT_JH_ELAPSED), -1: none */
	int need_val;
	uint32_t frame;			/* bytes pushed after pushfq */
	int pad;			/* a local site's frame has an 8-byte pad
					   (the helpers' calls are 16-aligned) */
	uint32_t clobber;		/* registers the body may write */
	uint32_t fallback;		/* label: restore, then the general path */
	int effects;			/* a side effect is emitted: no fallback
					   after it */
	uint32_t fault;			/* label: report a helper's fault, the
					   clause's where (action << 16 | pc) in eax */
	uint32_t where_act;		/* the action being compiled, 0xffff: the
					   predicate */
	int faults;			/* the clause has a fault path */
	int vclock;			/* a kernel probe of an image reading
					   vtimestamp: its time is probe context
					   (MT_JR_PLAT_VCLOCK) */
	/* string values: a record's DIFO may return a subroutine's string
	   (str_rec); what the last DIFO returned (JIT_STR_*: 2, the
	   platform's execname; JIT_STR_SCRATCH, ret_bound bytes of it if
	   not 0; JIT_STR_MIXED: RETs of different kinds) */
	int str_rec;
	uint8_t ret_str;
	uint32_t ret_bound, nret;
	char *why;
	size_t whylen;
};
#define JIT_STR_EXECNAME	2
#define JIT_STR_SCRATCH		3
#define JIT_STR_MIXED		0xff

int jit_fail(struct jit *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Registers the DIFO needs (pool registers, scratch), before emitting. */
int jit_difo_needs(struct jit *j, uint32_t difo1, uint32_t *regs);
/* Emit DIFO difo1; its value in rax.  0, or -1 (jit_fail said why). */
int jit_difo(struct jit *j, uint32_t difo1);
/* Call runtime helper h (kind MT_JR_HELPER, h MT_JH_*; or a platform
   kind) with cb, a1, then a2 or register
   a3 (a3_reg: a pool register); caller-saved registers pushed around it,
   the result in rax. */
void jit_call(struct jit *j, uint16_t kind, uint32_t h, int nargs, uint64_t a1, uint64_t a2, int a3_reg,
	      enum jreg a3);
/* The string at rax into the record's size bytes at r11 + off (the
   runtime's MT_JH_STR); a fault to the clause's fault path, at pc of
   the record's DIFO. */
void jit_str_rec(struct jit *j, uint32_t size, int32_t off, uint32_t pc);
/* Call runtime helper h with cb and three immediates. */
void jit_call_imm(struct jit *j, uint32_t h, uint32_t a1, uint32_t a2, uint32_t a3);
/* rax = the TSC (rdx clobbered) */
void jit_tsc(struct jit_buf *b);
/* The firing's timestamp into rax (once a firing: the slot at ts_off). */
void jit_timestamp(struct jit *j);

/* llquantize()'s bin in the dtrace-utils layout (jit/llq.c): constants
   for each magnitude; jit_llq_plan 0 when the layout is another or a
   power passes 64 bits (the runtime updates it then). */
#define JIT_LLQ_MAXORD	32
struct jit_llq {
	uint64_t first;			/* factor^lmag */
	uint64_t under, over;		/* the underflow bin, the overflow m */
	uint64_t sf, steps, lmag;
	uint32_t n;			/* magnitudes */
	uint64_t max[JIT_LLQ_MAXORD];	/* factor^(mag + 1) */
	uint64_t width[JIT_LLQ_MAXORD];	/* max / steps */
	uint64_t m0[JIT_LLQ_MAXORD];	/* (mag - lmag) * per + 1 */
};
int jit_llq_plan(const struct mt_agg *a, struct jit_llq *q);
/* rdx = the bin of rcx (rax and rcx kept) */
void jit_llq_bucket(struct jit_buf *b, const struct jit_llq *q);

#endif
