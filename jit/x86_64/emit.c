/*
 * The x86-64 emitter (emit.h): instruction encodings for the few forms
 * compiled probes use, forward labels, relocations.
 */
#include <stdlib.h>
#include <string.h>

#include "jit/x86_64/emit.h"
#include "machtrace/jitabi.h"
#include "machtrace/vec.h"

void jit_buf_init(struct jit_buf *b)
{
	memset(b, 0, sizeof *b);
}

void jit_buf_free(struct jit_buf *b)
{
	free(b->code);
	free(b->rel);
	memset(b, 0, sizeof *b);
}

static int grow(struct jit_buf *b, uint32_t n)
{
	if (b->err)
		return -1;
	if (mt_vec_reserve(&b->code, &b->cap, (size_t)b->len + n, 1, 256) != 0) {
		b->err = 1;
		return -1;
	}
	return 0;
}

void x_byte(struct jit_buf *b, uint8_t v)
{
	if (grow(b, 1) == 0)
		b->code[b->len++] = v;
}

static void x_u32(struct jit_buf *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		x_byte(b, (uint8_t)(v >> (8 * i)));
}

void x_rel32(struct jit_buf *b, uint16_t kind, uint32_t arg, int32_t addend)
{
	struct jit_rel *r;

	if (b->err)
		return;
	if (MT_VEC_ROOM(b->rel, b->nrel, b->caprel, 16) != 0) {
		b->err = 1;
		return;
	}
	r = &b->rel[b->nrel++];
	r->at = b->len;
	r->kind = kind;
	r->pad = 0;
	r->arg = arg;
	r->addend = addend;
	x_u32(b, 0);
}

uint32_t jit_label_new(struct jit_buf *b)
{
	if (b->nlabels >= JIT_MAXLABELS) {
		b->err = 1;
		return 0;
	}
	b->label[b->nlabels] = -1;
	return b->nlabels++;
}

void jit_label_here(struct jit_buf *b, uint32_t l)
{
	if (l < b->nlabels)
		b->label[l] = (int32_t)b->len;
}

/* A rel32 to label l at the current offset (patched by jit_buf_finish). */
static void fix(struct jit_buf *b, uint32_t l)
{
	if (b->nfix >= JIT_MAXFIX || l >= b->nlabels || b->label[l] >= 0) {
		b->err = 1;		/* too many, or backward */
		return;
	}
	b->fix[b->nfix].at = b->len;
	b->fix[b->nfix++].label = l;
	x_u32(b, 0);
}

int jit_buf_finish(struct jit_buf *b)
{
	for (uint32_t i = 0; i < b->nfix && !b->err; i++) {
		int32_t to = b->label[b->fix[i].label];
		int32_t d = to - (int32_t)(b->fix[i].at + 4);
		if (to < 0 || d < 0) {
			b->err = 1;
			break;
		}
		memcpy(b->code + b->fix[i].at, &d, 4);
	}
	return b->err ? -1 : 0;
}

/* REX prefix: w, then the high bits of reg (ModRM.reg), index, base. */
static void rex(struct jit_buf *b, int w, int reg, int index, int base, int force)
{
	uint8_t v = (uint8_t)(0x40 | (w ? 8 : 0) | ((reg & 8) ? 4 : 0) |
			      ((index & 8) ? 2 : 0) | ((base & 8) ? 1 : 0));
	if (v != 0x40 || force)
		x_byte(b, v);
}

static void modrm_rr(struct jit_buf *b, int reg, int rm)
{
	x_byte(b, (uint8_t)(0xc0 | ((reg & 7) << 3) | (rm & 7)));
}

/* ModRM (+ SIB + disp) for an absolute relocated address. */
static void modrm_abs(struct jit_buf *b, int reg, uint16_t kind, uint32_t arg, int32_t addend)
{
	x_byte(b, (uint8_t)(((reg & 7) << 3) | 4));
	x_byte(b, 0x25);
	x_rel32(b, kind, arg, addend);
}

/* ModRM (+ SIB + disp) for [base + disp]. */
static void modrm_mem(struct jit_buf *b, int reg, struct x_mem m)
{
	int small = !m.kind && m.disp >= -128 && m.disp <= 127;
	int mod = small ? 1 : 2;

	x_byte(b, (uint8_t)((mod << 6) | ((reg & 7) << 3) | (m.base & 7)));
	if ((m.base & 7) == 4)
		x_byte(b, 0x24);
	if (small)
		x_byte(b, (uint8_t)m.disp);
	else if (m.kind)
		x_rel32(b, m.kind, m.arg, m.disp);
	else
		x_u32(b, (uint32_t)m.disp);
}

void x_jcc(struct jit_buf *b, enum jcc cc, uint32_t label)
{
	x_byte(b, 0x0f);
	x_byte(b, (uint8_t)(0x80 | cc));
	fix(b, label);
}

void x_jmp(struct jit_buf *b, uint32_t label)
{
	x_byte(b, 0xe9);
	fix(b, label);
}

void x_jmp_rel(struct jit_buf *b, uint16_t kind, uint32_t arg)
{
	x_byte(b, 0xe9);
	x_rel32(b, kind, arg, 0);
}

void x_call_rel(struct jit_buf *b, uint16_t kind, uint32_t arg)
{
	x_byte(b, 0xe8);
	x_rel32(b, kind, arg, 0);
}

void x_ret(struct jit_buf *b) { x_byte(b, 0xc3); }
void x_pushfq(struct jit_buf *b) { x_byte(b, 0x9c); }
void x_popfq(struct jit_buf *b) { x_byte(b, 0x9d); }
void x_cli(struct jit_buf *b) { x_byte(b, 0xfa); }
void x_push_imm0(struct jit_buf *b) { x_byte(b, 0x6a); x_byte(b, 0); }

void x_rdtsc(struct jit_buf *b)
{
	x_byte(b, 0x0f);
	x_byte(b, 0x31);
}

void x_push(struct jit_buf *b, enum jreg r)
{
	rex(b, 0, 0, 0, r, 0);
	x_byte(b, (uint8_t)(0x50 | (r & 7)));
}

void x_pop(struct jit_buf *b, enum jreg r)
{
	rex(b, 0, 0, 0, r, 0);
	x_byte(b, (uint8_t)(0x58 | (r & 7)));
}

void x_mov_rr(struct jit_buf *b, enum jreg dst, enum jreg src)
{
	rex(b, 1, src, 0, dst, 0);
	x_byte(b, 0x89);
	modrm_rr(b, src, dst);
}

void x_mov_ri(struct jit_buf *b, enum jreg dst, uint64_t imm)
{
	/* never xor: a move keeps the flags a compare set */
	if (imm <= 0xffffffffull) {	/* mov r32, imm32 (zero-extends) */
		rex(b, 0, 0, 0, dst, 0);
		x_byte(b, (uint8_t)(0xb8 | (dst & 7)));
		x_u32(b, (uint32_t)imm);
	} else if ((int64_t)imm == (int32_t)imm) {
		rex(b, 1, 0, 0, dst, 0);
		x_byte(b, 0xc7);
		modrm_rr(b, 0, dst);
		x_u32(b, (uint32_t)imm);
	} else {
		rex(b, 1, 0, 0, dst, 0);
		x_byte(b, (uint8_t)(0xb8 | (dst & 7)));
		x_u32(b, (uint32_t)imm);
		x_u32(b, (uint32_t)(imm >> 32));
	}
}

void x_mov_rrel(struct jit_buf *b, enum jreg dst, uint16_t kind, uint32_t arg,
		int32_t addend)
{
	rex(b, 1, 0, 0, dst, 0);
	x_byte(b, 0xc7);
	modrm_rr(b, 0, dst);
	x_rel32(b, kind, arg, addend);
}

/* movabs $(field << 32 | lo), dst: the high half a relocation's value */
void x_mov_ri_hirel(struct jit_buf *b, enum jreg dst, uint32_t lo, uint16_t kind, uint32_t arg)
{
	rex(b, 1, 0, 0, dst, 0);
	x_byte(b, (uint8_t)(0xb8 | (dst & 7)));
	x_u32(b, lo);
	x_rel32(b, kind, arg, 0);
}

void x_alu_rr(struct jit_buf *b, enum jalu op, enum jreg dst, enum jreg src)
{
	rex(b, 1, src, 0, dst, 0);
	x_byte(b, (uint8_t)((op << 3) | 1));
	modrm_rr(b, src, dst);
}

void x_alu_ri(struct jit_buf *b, enum jalu op, enum jreg dst, int32_t imm)
{
	rex(b, 1, 0, 0, dst, 0);
	if (imm >= -128 && imm <= 127) {
		x_byte(b, 0x83);
		modrm_rr(b, op, dst);
		x_byte(b, (uint8_t)imm);
	} else {
		x_byte(b, 0x81);
		modrm_rr(b, op, dst);
		x_u32(b, (uint32_t)imm);
	}
}

void x_test_rr(struct jit_buf *b, enum jreg a, enum jreg c)
{
	rex(b, 1, c, 0, a, 0);
	x_byte(b, 0x85);
	modrm_rr(b, c, a);
}

void x_imul_rr(struct jit_buf *b, enum jreg dst, enum jreg src)
{
	rex(b, 1, dst, 0, src, 0);
	x_byte(b, 0x0f);
	x_byte(b, 0xaf);
	modrm_rr(b, dst, src);
}

void x_imul_ri(struct jit_buf *b, enum jreg dst, enum jreg src, int32_t imm)
{
	rex(b, 1, dst, 0, src, 0);
	x_byte(b, 0x69);
	modrm_rr(b, dst, src);
	x_u32(b, (uint32_t)imm);
}

void x_alu_rrel(struct jit_buf *b, enum jalu op, enum jreg dst, uint16_t kind, uint32_t arg)
{
	rex(b, 1, 0, 0, dst, 0);
	x_byte(b, 0x81);
	modrm_rr(b, op, dst);
	x_rel32(b, kind, arg, 0);
}

void x_shift_cl(struct jit_buf *b, int ext, enum jreg dst)
{
	rex(b, 1, 0, 0, dst, 0);
	x_byte(b, 0xd3);
	modrm_rr(b, ext, dst);
}

void x_shift_ri(struct jit_buf *b, int ext, enum jreg dst, uint8_t n)
{
	rex(b, 1, 0, 0, dst, 0);
	x_byte(b, 0xc1);
	modrm_rr(b, ext, dst);
	x_byte(b, n);
}

static void f7(struct jit_buf *b, int ext, enum jreg r)
{
	rex(b, 1, 0, 0, r, 0);
	x_byte(b, 0xf7);
	modrm_rr(b, ext, r);
}

void x_not(struct jit_buf *b, enum jreg r) { f7(b, 2, r); }
void x_neg(struct jit_buf *b, enum jreg r) { f7(b, 3, r); }
void x_div(struct jit_buf *b, enum jreg r, int is_signed) { f7(b, is_signed ? 7 : 6, r); }
void x_cqo(struct jit_buf *b) { x_byte(b, 0x48); x_byte(b, 0x99); }

void x_bsr(struct jit_buf *b, enum jreg dst, enum jreg src)
{
	rex(b, 1, dst, 0, src, 0);
	x_byte(b, 0x0f);
	x_byte(b, 0xbd);
	modrm_rr(b, dst, src);
}

void x_shrd_ri(struct jit_buf *b, enum jreg dst, enum jreg src, uint8_t n)
{
	rex(b, 1, src, 0, dst, 0);
	x_byte(b, 0x0f);
	x_byte(b, 0xac);
	modrm_rr(b, src, dst);
	x_byte(b, n);
}

void x_load_abs(struct jit_buf *b, int size, enum jreg dst, uint16_t kind,
		uint32_t arg, int32_t addend)
{
	rex(b, size == 8, dst, 0, 0, 0);
	x_byte(b, 0x8b);
	modrm_abs(b, dst, kind, arg, addend);
}

void x_alu_r_abs(struct jit_buf *b, enum jalu op, enum jreg dst, uint16_t kind,
		 uint32_t arg, int32_t addend)
{
	rex(b, 1, dst, 0, 0, 0);
	x_byte(b, (uint8_t)((op << 3) | 3));
	modrm_abs(b, dst, kind, arg, addend);
}

void x_store_abs(struct jit_buf *b, int size, enum jreg src, uint16_t kind,
		 uint32_t arg, int32_t addend)
{
	rex(b, size == 8, src, 0, 0, 0);
	x_byte(b, 0x89);
	modrm_abs(b, src, kind, arg, addend);
}

void x_inc_abs(struct jit_buf *b, int size, uint16_t kind, uint32_t arg, int32_t addend)
{
	rex(b, size == 8, 0, 0, 0, 0);
	x_byte(b, 0xff);
	modrm_abs(b, 0, kind, arg, addend);
}

/* The same, locked: a counter every CPU adds to. */
void x_lock_inc_abs(struct jit_buf *b, int size, uint16_t kind, uint32_t arg, int32_t addend)
{
	x_byte(b, 0xf0);
	x_inc_abs(b, size, kind, arg, addend);
}

void x_cmp_abs_imm(struct jit_buf *b, int size, uint16_t kind, uint32_t arg,
		   int32_t addend, int32_t imm)
{
	rex(b, size == 8, 0, 0, 0, 0);
	if (imm >= -128 && imm <= 127) {
		x_byte(b, 0x83);
		modrm_abs(b, 7, kind, arg, addend);
		x_byte(b, (uint8_t)imm);
	} else {
		x_byte(b, 0x81);
		modrm_abs(b, 7, kind, arg, addend);
		x_u32(b, (uint32_t)imm);
	}
}

void x_mul_abs(struct jit_buf *b, uint16_t kind, uint32_t arg, int32_t addend)
{
	rex(b, 1, 0, 0, 0, 0);
	x_byte(b, 0xf7);
	modrm_abs(b, 4, kind, arg, addend);
}

void x_load_m(struct jit_buf *b, int size, enum jreg dst, struct x_mem m)
{
	rex(b, size == 8, dst, 0, m.base, 0);
	x_byte(b, 0x8b);
	modrm_mem(b, dst, m);
}

void x_load_ext(struct jit_buf *b, int size, int is_signed, enum jreg dst, struct x_mem m)
{
	if (size == 8 || (size == 4 && !is_signed)) {
		x_load_m(b, size, dst, m);
		return;
	}
	rex(b, 1, dst, 0, m.base, 0);
	if (size == 4) {
		x_byte(b, 0x63);			/* movsxd */
	} else {
		x_byte(b, 0x0f);			/* movzx / movsx */
		x_byte(b, (uint8_t)((is_signed ? 0xbe : 0xb6) | (size == 2)));
	}
	modrm_mem(b, dst, m);
}

void x_store_m(struct jit_buf *b, int size, enum jreg src, struct x_mem m)
{
	if (size == 2)
		x_byte(b, 0x66);
	/* a byte store of rsi/rdi/rbp/rsp's low byte would need a REX:
	   forced, harmless for the others */
	rex(b, size == 8, src, 0, m.base, size == 1);
	x_byte(b, size == 1 ? 0x88 : 0x89);
	modrm_mem(b, src, m);
}

void x_store_mi(struct jit_buf *b, int size, struct x_mem m, int32_t imm)
{
	rex(b, size == 8, 0, 0, m.base, 0);
	x_byte(b, 0xc7);
	modrm_mem(b, 0, m);
	x_u32(b, (uint32_t)imm);
}

void x_inc_m(struct jit_buf *b, int size, struct x_mem m)
{
	rex(b, size == 8, 0, 0, m.base, 0);
	x_byte(b, 0xff);
	modrm_mem(b, 0, m);
}

void x_add_mr(struct jit_buf *b, struct x_mem m, enum jreg src)
{
	rex(b, 1, src, 0, m.base, 0);
	x_byte(b, 0x01);
	modrm_mem(b, src, m);
}

void x_cmp_mr(struct jit_buf *b, struct x_mem m, enum jreg src)
{
	rex(b, 1, src, 0, m.base, 0);
	x_byte(b, 0x39);
	modrm_mem(b, src, m);
}

void x_lea(struct jit_buf *b, enum jreg dst, struct x_mem m)
{
	rex(b, 1, dst, 0, m.base, 0);
	x_byte(b, 0x8d);
	modrm_mem(b, dst, m);
}
