/*
 * The x86-64 emitter of the probe compiler: a growing byte buffer, the
 * handful of instruction forms compiled probes use, forward labels and
 * relocations.  Every memory operand is either absolute (a 32-bit
 * sign-extended displacement that a relocation fills in: the state area
 * and the blob live in the kernel's top 2 GiB) or a register plus a
 * displacement.  Jumps only go forward (jit_label_new, then
 * jit_label_here after the jumps to it); a jump to a label placed
 * before it is an error (jit->err), which keeps every emitted program
 * bounded.
 */
#ifndef MT_JIT_EMIT_H
#define MT_JIT_EMIT_H

#include <stddef.h>
#include <stdint.h>

enum jreg {
	X_RAX = 0, X_RCX, X_RDX, X_RBX, X_RSP, X_RBP, X_RSI, X_RDI,
	X_R8, X_R9, X_R10, X_R11, X_R12, X_R13, X_R14, X_R15
};

/* Condition codes (the low nibble of jcc). */
enum jcc {
	CC_B = 0x2, CC_AE = 0x3, CC_E = 0x4, CC_NE = 0x5, CC_BE = 0x6,
	CC_A = 0x7, CC_S = 0x8, CC_NS = 0x9, CC_L = 0xc, CC_GE = 0xd,
	CC_LE = 0xe, CC_G = 0xf
};

/* Two-operand ALU ops: the /digit of 81/83 and (op << 3) | 1 for r/m, r. */
enum jalu { A_ADD = 0, A_OR = 1, A_AND = 4, A_SUB = 5, A_XOR = 6, A_CMP = 7 };

struct jit_rel {
	uint32_t at;			/* offset of the 4-byte field */
	uint16_t kind;			/* MT_JR_* */
	uint16_t pad;
	uint32_t arg;
	int32_t addend;
};

#define JIT_MAXLABELS	512
#define JIT_MAXFIX	1024

struct jit_buf {
	uint8_t *code;
	uint32_t len;
	size_t cap;
	struct jit_rel *rel;
	uint32_t nrel;
	size_t caprel;
	int err;			/* out of memory, backward jump, too many labels */
	uint32_t nlabels;
	int32_t label[JIT_MAXLABELS];	/* offset, -1 until placed */
	uint32_t nfix;
	struct { uint32_t at, label; } fix[JIT_MAXFIX];
};

void jit_buf_init(struct jit_buf *b);
void jit_buf_free(struct jit_buf *b);
/* Resolve the jumps to labels; -1 (b->err) if one is still unplaced. */
int jit_buf_finish(struct jit_buf *b);

uint32_t jit_label_new(struct jit_buf *b);
void jit_label_here(struct jit_buf *b, uint32_t l);

void x_byte(struct jit_buf *b, uint8_t v);
/* A 4-byte field filled in at arming: relocation kind/arg + addend. */
void x_rel32(struct jit_buf *b, uint16_t kind, uint32_t arg, int32_t addend);

/* Control */
void x_jcc(struct jit_buf *b, enum jcc cc, uint32_t label);
void x_jmp(struct jit_buf *b, uint32_t label);
/* jmp/call rel32 whose displacement a relocation fills in. */
void x_jmp_rel(struct jit_buf *b, uint16_t kind, uint32_t arg);
void x_call_rel(struct jit_buf *b, uint16_t kind, uint32_t arg);
void x_ret(struct jit_buf *b);
void x_push(struct jit_buf *b, enum jreg r);
void x_pop(struct jit_buf *b, enum jreg r);
void x_push_imm0(struct jit_buf *b);
void x_pushfq(struct jit_buf *b);
void x_popfq(struct jit_buf *b);
void x_cli(struct jit_buf *b);
void x_rdtsc(struct jit_buf *b);

/* Register and immediate moves, 64-bit */
void x_mov_rr(struct jit_buf *b, enum jreg dst, enum jreg src);
void x_mov_ri(struct jit_buf *b, enum jreg dst, uint64_t imm);
void x_mov_ri_hirel(struct jit_buf *b, enum jreg dst, uint32_t lo, uint16_t kind, uint32_t arg);
/* dst = (sign-extended) relocated 32-bit value */
void x_mov_rrel(struct jit_buf *b, enum jreg dst, uint16_t kind, uint32_t arg,
		int32_t addend);
void x_alu_rr(struct jit_buf *b, enum jalu op, enum jreg dst, enum jreg src);
void x_alu_ri(struct jit_buf *b, enum jalu op, enum jreg dst, int32_t imm);
void x_test_rr(struct jit_buf *b, enum jreg a, enum jreg c);
void x_imul_rr(struct jit_buf *b, enum jreg dst, enum jreg src);
void x_imul_ri(struct jit_buf *b, enum jreg dst, enum jreg src, int32_t imm);
/* op dst, imm32: the value relocation kind/arg names */
void x_alu_rrel(struct jit_buf *b, enum jalu op, enum jreg dst, uint16_t kind, uint32_t arg);
/* shl/shr/sar dst by cl (ext 4, 5, 7) or by an immediate */
void x_shift_cl(struct jit_buf *b, int ext, enum jreg dst);
void x_shift_ri(struct jit_buf *b, int ext, enum jreg dst, uint8_t n);
void x_not(struct jit_buf *b, enum jreg r);
void x_neg(struct jit_buf *b, enum jreg r);
void x_bsr(struct jit_buf *b, enum jreg dst, enum jreg src);
/* (unsigned) divide rdx:rax by r: F7 /6; signed: /7 */
void x_div(struct jit_buf *b, enum jreg r, int is_signed);
void x_cqo(struct jit_buf *b);
void x_shrd_ri(struct jit_buf *b, enum jreg dst, enum jreg src, uint8_t n);

/* Absolute memory (relocated disp32).  size 4 or 8. */
void x_load_abs(struct jit_buf *b, int size, enum jreg dst, uint16_t kind,
		uint32_t arg, int32_t addend);
void x_store_abs(struct jit_buf *b, int size, enum jreg src, uint16_t kind,
		 uint32_t arg, int32_t addend);
void x_inc_abs(struct jit_buf *b, int size, uint16_t kind, uint32_t arg, int32_t addend);
void x_lock_inc_abs(struct jit_buf *b, int size, uint16_t kind, uint32_t arg, int32_t addend);
void x_cmp_abs_imm(struct jit_buf *b, int size, uint16_t kind, uint32_t arg,
		   int32_t addend, int32_t imm);
/* op dst, [abs] (64-bit) */
void x_alu_r_abs(struct jit_buf *b, enum jalu op, enum jreg dst, uint16_t kind,
		 uint32_t arg, int32_t addend);
void x_mul_abs(struct jit_buf *b, uint16_t kind, uint32_t arg, int32_t addend);

/* [base + disp] with disp relocated (kind != 0) or plain. */
struct x_mem {
	enum jreg base;
	int32_t disp;
	uint16_t kind;			/* MT_JR_*, 0: disp is plain */
	uint32_t arg;
};
void x_load_m(struct jit_buf *b, int size, enum jreg dst, struct x_mem m);
/* dst = size bytes at m (1, 2, 4, 8), zero- or sign-extended */
void x_load_ext(struct jit_buf *b, int size, int is_signed, enum jreg dst, struct x_mem m);
void x_store_m(struct jit_buf *b, int size, enum jreg src, struct x_mem m);
void x_store_mi(struct jit_buf *b, int size, struct x_mem m, int32_t imm);
void x_inc_m(struct jit_buf *b, int size, struct x_mem m);
void x_add_mr(struct jit_buf *b, struct x_mem m, enum jreg src);
void x_cmp_mr(struct jit_buf *b, struct x_mem m, enum jreg src);
void x_lea(struct jit_buf *b, enum jreg dst, struct x_mem m);

#endif
