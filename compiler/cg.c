/*
 * Code generation: cooked expressions to bytecode (abi.h).
 *
 * Each expression is compiled into its own DIFO.  Registers %r1..%r15 are
 * handed out by a bitmask; cg_expr() returns a register the caller owns.
 * Values: integers and pointers are 64-bit values (narrower types are
 * sign- or zero-extended when loaded or cast); strings, structs and arrays
 * are addresses.  Assoc keys and subroutine arguments are evaluated into
 * registers first and pushed on the tuple stack only right before the
 * instruction that uses them, so the stack is empty between operations.
 * Branch labels are instruction indices relative to the DIFO's first
 * instruction.
 */
#include <stdio.h>
#include <string.h>
#include "cc.h"

static int cg_expr(struct cc *cc, struct node *n);	/* returns register */

static int reg_alloc(struct cc *cc, int line)
{
	for (int r = 1; r < MT_NREGS; r++)
		if (!(cc->regmask & (1u << r))) {
			cc->regmask |= (uint16_t)(1u << r);
			return r;
		}
	cc_error(cc, line, D_NOREG, "insufficient registers to generate code");
}

static void cg_free(struct cc *cc, int r)
{
	if (r > 0)
		cc->regmask &= (uint16_t)~(1u << r);
}

static int regs_free(const struct cc *cc)
{
	int n = 0;

	for (int r = 1; r < MT_NREGS; r++)
		n += !(cc->regmask & (1u << r));
	return n;
}

/*
 * Spill slots: hidden clause-local variables ("this->%spillN"), one per
 * nesting level of spilled operands, created on first use and shared by
 * every DIFO of the program.
 */
#define SPILL_MAX	64
#define SPILL_BELOW	6	/* free registers under which operands spill */

static uint16_t spill_slot(struct cc *cc, int line)
{
	uint32_t k = cc->cg_nspill;

	if (k >= SPILL_MAX)
		cc_error(cc, line, D_NOREG, "insufficient registers to generate code");
	if (k == cc->spill_ids.n) {
		struct mt_var v = {0};

		v.scope = 2;
		v.id = (uint16_t)(MT_VAR_USER + cc->nuser[2]++);
		v.kind = MT_VK_SCALAR;
		v.size = 8;
		VEC_PUSH(cc, cc->vars, v);
		VEC_PUSH(cc, cc->var_names, strdup(cc_printf(cc, "this->%%spill%u", k)));
		VEC_PUSH(cc, cc->spill_ids, v.id);
	}
	return cc->spill_ids.v[cc->cg_nspill++];
}

static int is_leaf(const struct node *n)
{
	return n->k == N_INT || n->k == N_STRING;
}

/*
 * The operands of a binary operator, left then right as D evaluates them.
 * When few registers are left while the left value is held, that value
 * waits in a spill slot while the right operand is generated (as
 * dtrace-utils spills to its stack), so a long expression runs out of
 * registers only when SPILL_MAX levels are spilled at once.
 */
static void cg_operands(struct cc *cc, struct node *l, struct node *r,
			int *a, int *b)
{
	uint16_t slot;

	*a = cg_expr(cc, l);
	if (is_leaf(r) || regs_free(cc) >= SPILL_BELOW) {
		*b = cg_expr(cc, r);
		return;
	}
	slot = spill_slot(cc, r->line);
	as_emit(cc, MT_INSTR_V16(MT_OP_STLS, slot, *a));
	cg_free(cc, *a);
	*b = cg_expr(cc, r);
	*a = reg_alloc(cc, r->line);
	as_emit(cc, MT_INSTR_V16(MT_OP_LDLS, slot, *a));
	cc->cg_nspill--;
}

static uint32_t emit(struct cc *cc, int op, int r1, int r2, int rd)
{
	return as_emit(cc, MT_INSTR(op, r1, r2, rd));
}

static uint32_t cur_label(struct cc *cc, uint32_t text0)
{
	return cc->text_v.n - text0;
}

static uint32_t emit_br(struct cc *cc, int op)
{
	return as_emit(cc, MT_INSTR_BR(op, 0));
}

static void patch_here(struct cc *cc, uint32_t at)
{
	as_patch(cc, at, cur_label(cc, cc->cg_text0));
}

static int cg_const(struct cc *cc, int64_t v, int line)
{
	int r = reg_alloc(cc, line);
	as_emit(cc, MT_INSTR_V16(MT_OP_SETX, as_int(cc, (uint64_t)v), r));
	return r;
}

static int load_op(struct type *t)
{
	uint32_t sz = t->canon->size;
	int s = t->canon->is_signed;
	if (TY_K(t) == T_PTR)
		return MT_OP_LDX;
	switch (sz) {
	case 1: return s ? MT_OP_LDSB : MT_OP_LDUB;
	case 2: return s ? MT_OP_LDSH : MT_OP_LDUH;
	case 4: return s ? MT_OP_LDSW : MT_OP_LDUW;
	default: return MT_OP_LDX;
	}
}

/* Load of a bit-field's storage unit. */
static int unit_load_op(struct member *m)
{
	uint32_t sz = m->usize ? m->usize : m->type->canon->size;
	switch (sz) {
	case 1: return MT_OP_LDUB;
	case 2: return MT_OP_LDUH;
	case 4: return MT_OP_LDUW;
	default: return MT_OP_LDX;
	}
}

static int store_op(uint32_t sz)
{
	switch (sz) {
	case 1: return MT_OP_STB;
	case 2: return MT_OP_STH;
	case 4: return MT_OP_STW;
	default: return MT_OP_STX;
	}
}

static int is_byref(struct type *t)
{
	return ty_is_string(t) || ty_is_sou(t) || TY_K(t) == T_ARRAY;
}

/* Sign- or zero-extend r from the width of t (in place). */
static void cg_extend(struct cc *cc, int r, struct type *t, int line)
{
	if (!ty_is_integral(t))
		return;
	uint32_t sz = t->canon->size;
	if (sz >= 8 || sz == 0)
		return;
	int sh = cg_const(cc, 64 - 8 * sz, line);
	emit(cc, MT_OP_SLL, r, sh, r);
	emit(cc, t->canon->is_signed ? MT_OP_SRA : MT_OP_SRL, r, sh, r);
	cg_free(cc, sh);
}

static int cg_addr(struct cc *cc, struct node *n);

/* Load a value of type t from the address in r (in place). */
static void cg_load(struct cc *cc, int r, struct type *t)
{
	if (is_byref(t))
		return;
	emit(cc, load_op(t), r, 0, r);
}

static struct member *node_member(struct cc *cc, struct node *n)
{
	struct type *t = n->l->type;
	if (n->op == OP_ARROW)
		t = t->canon->base;
	return ty_member(cc, t, n->name);
}

static void cg_bitfield(struct cc *cc, int r, struct member *m, int line)
{
	/* r holds the storage unit; extract bits [bitoff, bitoff+bits) */
	int sh = cg_const(cc, 64 - m->bitoff - m->bits, line);
	emit(cc, MT_OP_SLL, r, sh, r);
	cg_free(cc, sh);
	sh = cg_const(cc, 64 - m->bits, line);
	emit(cc, m->type->canon->is_signed ? MT_OP_SRA : MT_OP_SRL, r, sh, r);
	cg_free(cc, sh);
}

/* Evaluate args into registers (for pushing later). */
static int eval_args(struct cc *cc, struct node *args, int *regs, int max)
{
	int n = 0, k = 0;
	for (struct node *a = args; a; a = a->next)
		k++;
	if (k > 10)	/* dtrace's limit on tuple entries */
		cc_error_notag(cc, 0, "Insufficient tuple registers to generate code");
	for (struct node *a = args; a && n < max; a = a->next)
		regs[n++] = cg_expr(cc, a);
	return n;
}

static void push_args(struct cc *cc, struct node *args, int *regs, int n)
{
	struct node *a = args;
	for (int i = 0; i < n; i++, a = a->next) {
		if (ty_is_string(a->type)) {
			emit(cc, MT_OP_PUSHTR, MT_TT_STR, 0, regs[i]);
		} else if (is_byref(a->type)) {
			int sz = cg_const(cc, a->type->canon->size, a->line);
			emit(cc, MT_OP_PUSHTR, MT_TT_MEM, sz, regs[i]);
			cg_free(cc, sz);
		} else {
			emit(cc, MT_OP_PUSHTV, MT_TT_INT, 0, regs[i]);
		}
		cg_free(cc, regs[i]);
	}
}

static int var_op(int scope, int store, int assoc)
{
	if (assoc)
		return scope == 1 ? (store ? MT_OP_STTAA : MT_OP_LDTAA) :
				    (store ? MT_OP_STGAA : MT_OP_LDGAA);
	switch (scope) {
	case 1: return store ? MT_OP_STTS : MT_OP_LDTS;
	case 2: return store ? MT_OP_STLS : MT_OP_LDLS;
	default: return store ? MT_OP_STGS : MT_OP_LDGS;
	}
}

static int var_id(struct cc *cc, struct ident *id)
{
	int idx = sema_var_index(cc, id);
	return cc->vars.v[idx].id;
}

/* Load a D variable (scalar or assoc element) into a new register. */
static int cg_var_load(struct cc *cc, struct node *n)
{
	struct ident *id = n->id;
	int rd;
	if (n->op == OP_INDEX) {
		int regs[16];
		int k = eval_args(cc, n->args, regs, 16);
		push_args(cc, n->args, regs, k);
		rd = reg_alloc(cc, n->line);
		as_emit(cc, MT_INSTR_V16(var_op(id->scope, 0, 1), var_id(cc, id), rd));
		emit(cc, MT_OP_FLUSHTS, 0, 0, 0);
		return rd;
	}
	rd = reg_alloc(cc, n->line);
	as_emit(cc, MT_INSTR_V16(var_op(id->scope, 0, 0), var_id(cc, id), rd));
	return rd;
}

/* Store register r into the variable n (scalar or assoc element). */
static void cg_var_store(struct cc *cc, struct node *n, int r)
{
	struct ident *id = n->id;
	if (n->op == OP_INDEX) {
		int regs[16];
		int k = eval_args(cc, n->args, regs, 16);
		push_args(cc, n->args, regs, k);
		as_emit(cc, MT_INSTR_V16(var_op(id->scope, 1, 1), var_id(cc, id), r));
		emit(cc, MT_OP_FLUSHTS, 0, 0, 0);
		return;
	}
	as_emit(cc, MT_INSTR_V16(var_op(id->scope, 1, 0), var_id(cc, id), r));
}

static int cg_xlate(struct cc *cc, struct node *n)
{
	struct xlator *x = n->xl;
	struct type *st = x->out;
	int in = cg_expr(cc, n->l);
	int sz = cg_const(cc, st->canon->size, n->line);
	int buf = reg_alloc(cc, n->line);
	emit(cc, MT_OP_ALLOCS, sz, 0, buf);
	cg_free(cc, sz);
	int oarg = cc->cg_xlarg;
	cc->cg_xlarg = in;
	for (struct xlmember *xm = x->members; xm; xm = xm->next) {
		struct member *m = ty_member(cc, st, xm->name);
		int v = cg_expr(cc, xm->expr);
		int a = reg_alloc(cc, n->line);
		int off = cg_const(cc, m->off, n->line);
		emit(cc, MT_OP_ADD, buf, off, a);
		cg_free(cc, off);
		if (is_byref(m->type)) {
			uint32_t msz = ty_is_string(m->type) && !ty_is_ptrlike(m->type) ?
				       cc->strsize : m->type->canon->size;
			int s = cg_const(cc, msz, n->line);
			emit(cc, MT_OP_COPYS, v, s, a);
			cg_free(cc, s);
		} else {
			emit(cc, store_op(m->type->canon->size), v, 0, a);
		}
		cg_free(cc, a);
		cg_free(cc, v);
	}
	cc->cg_xlarg = oarg;
	cg_free(cc, in);
	return buf;
}

/*
 * The translation a member reference n reads from, seen through plain
 * inlines (curpsinfo is xlate<psinfo_t *>(curthread)), with in *xm the
 * translator's member; NULL when n does not read a translated member.
 */
static struct node *xlate_of(struct cc *cc, struct node *n,
			     struct xlmember **xm)
{
	struct node *o = n->l;
	int depth = 0;
	while (o->k == N_IDENT && o->id->k == ID_INLINE && !o->id->param &&
	       o->id->val != 1 && o->id->init && depth++ < CC_MAXNEST)
		o = o->id->init;
	if (o->k != N_XLATE || !o->xl || node_member(cc, n)->bits)
		return NULL;
	for (*xm = o->xl->members; *xm; *xm = (*xm)->next)
		if (strcmp((*xm)->name, n->name) == 0)
			return o;
	return NULL;
}

/*
 * One member of a translation (dtrace's dt_cg_xlate_member): only that
 * member's translator expression runs.  The value is the one the whole
 * translation would hold there: an integer cut to the member's width, a
 * string as it is, an array or struct copied into scratch of its size.
 */
static int cg_xlate_member(struct cc *cc, struct node *n, struct node *x,
			   struct xlmember *xm)
{
	struct member *m = node_member(cc, n);
	int in = cg_expr(cc, x->l);
	int oarg = cc->cg_xlarg;
	cc->cg_xlarg = in;
	int v = cg_expr(cc, xm->expr);
	cc->cg_xlarg = oarg;
	cg_free(cc, in);
	if (!is_byref(m->type)) {
		struct type *et = xm->expr->type;
		if (!ty_is_integral(et) ||
		    et->canon->size != m->type->canon->size ||
		    et->canon->is_signed != m->type->canon->is_signed)
			cg_extend(cc, v, m->type, n->line);
		return v;
	}
	if (ty_is_string(m->type) && !ty_is_ptrlike(m->type))
		return v;
	int sz = cg_const(cc, m->type->canon->size, n->line);
	int buf = reg_alloc(cc, n->line);
	emit(cc, MT_OP_ALLOCS, sz, 0, buf);
	emit(cc, MT_OP_COPYS, v, sz, buf);
	cg_free(cc, sz);
	cg_free(cc, v);
	return buf;
}

static int cg_call(struct cc *cc, struct node *n)
{
	int regs[16];
	int k = eval_args(cc, n->args, regs, 16);
	push_args(cc, n->args, regs, k);
	int rd = reg_alloc(cc, n->line);
	as_emit(cc, MT_INSTR_V16(MT_OP_CALL, n->id->id, rd));
	return rd;
}

/*
 * A run-time index into an array of known size: the index comes back
 * from the ARRIDX subroutine, which faults with DTRACEFLT_BADINDEX when
 * it is not below nelems (compared unsigned, so negative indices fault
 * too).  Constant indices are checked at compile time (D_ARR_BOUNDS).
 */
static int cg_arridx(struct cc *cc, int i, uint32_t nelems, int line)
{
	int n = cg_const(cc, nelems, line);
	emit(cc, MT_OP_PUSHTV, MT_TT_INT, 0, i);
	emit(cc, MT_OP_PUSHTV, MT_TT_INT, 0, n);
	cg_free(cc, n);
	as_emit(cc, MT_INSTR_V16(MT_OP_CALL, MT_SUBR_ARRIDX, i));
	return i;
}

/*
 * stringof() of an alloca()'d pointer: the ALLOCASTR subroutine faults
 * unless strsize bytes from it are allocated scratch, dtrace-utils' bound
 * on a string read from alloca space.
 */
static void cg_alloca_str(struct cc *cc, int r)
{
	emit(cc, MT_OP_PUSHTV, MT_TT_INT, 0, r);
	as_emit(cc, MT_INSTR_V16(MT_OP_CALL, MT_SUBR_ALLOCASTR, r));
}

/* Address of an lvalue in memory (member, deref, index). */
static int cg_addr(struct cc *cc, struct node *n)
{
	int r;
	switch (n->k) {
	case N_MEMBER: {
		struct member *m = node_member(cc, n);
		if (n->op == OP_ARROW)
			r = cg_expr(cc, n->l);
		else
			r = cg_expr(cc, n->l);	/* struct values are addresses */
		if (m->off) {
			int o = cg_const(cc, m->off, n->line);
			emit(cc, MT_OP_ADD, r, o, r);
			cg_free(cc, o);
		}
		return r;
	}
	case N_OP1:
		if (n->op == OP_DEREF)
			return cg_expr(cc, n->l);
		break;
	case N_OP2:
		if (n->op == OP_INDEX && n->scope == -2) {
			r = cg_expr(cc, n->l);
			int i = cg_expr(cc, n->args);
			if (TY_K(n->l->type) == T_ARRAY &&
			    n->l->type->canon->nelems > 0 && !n->args->is_const)
				i = cg_arridx(cc, i, n->l->type->canon->nelems,
					      n->line);
			uint32_t esz = n->type->canon->size;
			if (esz != 1) {
				int s = cg_const(cc, esz, n->line);
				emit(cc, MT_OP_MUL, i, s, i);
				cg_free(cc, s);
			}
			emit(cc, MT_OP_ADD, r, i, r);
			cg_free(cc, i);
			return r;
		}
		break;
	default:
		break;
	}
	cc_error(cc, n->line, D_OP_LVAL, "operand is not an lvalue in memory");
}

static int cmp_branch(int op, int uns)
{
	switch (op) {
	case OP_EQ: return MT_OP_BE;
	case OP_NE: return MT_OP_BNE;
	case OP_LT: return uns ? MT_OP_BLU : MT_OP_BL;
	case OP_LE: return uns ? MT_OP_BLEU : MT_OP_BLE;
	case OP_GT: return uns ? MT_OP_BGU : MT_OP_BG;
	default: return uns ? MT_OP_BGEU : MT_OP_BGE;
	}
}

/* rd = condition codes satisfy br ? 1 : 0 */
static int cg_setcc(struct cc *cc, int br, int line)
{
	int rd = reg_alloc(cc, line);
	uint32_t bt = emit_br(cc, br);
	emit(cc, MT_OP_MOV, 0, 0, rd);
	uint32_t be = emit_br(cc, MT_OP_BA);
	patch_here(cc, bt);
	as_emit(cc, MT_INSTR_V16(MT_OP_SETX, as_int(cc, 1), rd));
	patch_here(cc, be);
	return rd;
}

static int cg_compare(struct cc *cc, struct node *n)
{
	struct node *l = n->l, *r = n->r;
	int a, b, str = ty_is_string(l->type) || ty_is_string(r->type);
	int uns = 1;
	cg_operands(cc, l, r, &a, &b);
	if (ty_is_integral(l->type) && ty_is_integral(r->type)) {
		struct type *lt = l->type->canon, *rt = r->type->canon;
		uint32_t ls = lt->size < 4 ? 4 : lt->size, rs = rt->size < 4 ? 4 : rt->size;
		int lu = lt->size >= 4 && !lt->is_signed && TY_K(l->type) != T_ENUM;
		int ru = rt->size >= 4 && !rt->is_signed && TY_K(r->type) != T_ENUM;
		if (ls == rs)
			uns = lu || ru;
		else
			uns = ls > rs ? lu : ru;
	}
	emit(cc, str ? MT_OP_SCMP : MT_OP_CMP, a, b, 0);
	cg_free(cc, a);
	cg_free(cc, b);
	return cg_setcc(cc, cmp_branch(n->op, str ? 0 : uns), n->line);
}

static int cg_logical(struct cc *cc, struct node *n)
{
	int rd = reg_alloc(cc, n->line);
	if (n->op == OP_LXOR) {
		int a = cg_expr(cc, n->l);
		emit(cc, MT_OP_TST, a, 0, 0);
		cg_free(cc, a);
		int ba = cg_setcc(cc, MT_OP_BNE, n->line);
		int b = cg_expr(cc, n->r);
		emit(cc, MT_OP_TST, b, 0, 0);
		cg_free(cc, b);
		int bb = cg_setcc(cc, MT_OP_BNE, n->line);
		emit(cc, MT_OP_XOR, ba, bb, rd);
		cg_free(cc, ba);
		cg_free(cc, bb);
		return rd;
	}
	int land = n->op == OP_LAND;
	cg_free(cc, rd);
	int a = cg_expr(cc, n->l);
	emit(cc, MT_OP_TST, a, 0, 0);
	cg_free(cc, a);
	uint32_t b1 = emit_br(cc, land ? MT_OP_BE : MT_OP_BNE);
	int b = cg_expr(cc, n->r);
	emit(cc, MT_OP_TST, b, 0, 0);
	cg_free(cc, b);
	uint32_t b2 = emit_br(cc, land ? MT_OP_BE : MT_OP_BNE);
	rd = reg_alloc(cc, n->line);
	as_emit(cc, MT_INSTR_V16(MT_OP_SETX, as_int(cc, land ? 1 : 0), rd));
	uint32_t be = emit_br(cc, MT_OP_BA);
	patch_here(cc, b1);
	patch_here(cc, b2);
	as_emit(cc, MT_INSTR_V16(MT_OP_SETX, as_int(cc, land ? 0 : 1), rd));
	patch_here(cc, be);
	return rd;
}

static int arith_op(int op, int uns)
{
	switch (op) {
	case OP_PLUS: case OP_ADD_EQ: return MT_OP_ADD;
	case OP_MINUS: case OP_SUB_EQ: return MT_OP_SUB;
	case OP_STAR: case OP_MUL_EQ: return MT_OP_MUL;
	case OP_SLASH: case OP_DIV_EQ: return uns ? MT_OP_UDIV : MT_OP_SDIV;
	case OP_MOD: case OP_MOD_EQ: return uns ? MT_OP_UREM : MT_OP_SREM;
	case OP_AMP: case OP_AND_EQ: return MT_OP_AND;
	case OP_BOR: case OP_OR_EQ: return MT_OP_OR;
	case OP_XOR: case OP_XOR_EQ: return MT_OP_XOR;
	case OP_SHL: case OP_SHL_EQ: return MT_OP_SLL;
	default: return uns ? MT_OP_SRL : MT_OP_SRA;
	}
}

/* a = a op b with pointer scaling; result in a. */
static void cg_arith(struct cc *cc, int op, int a, int b, struct type *lt,
		     struct type *rt, struct type *res, int line)
{
	int lp = ty_is_ptrlike(lt), rp = ty_is_ptrlike(rt);
	int mop = arith_op(op, !res->canon->is_signed || TY_K(res) == T_PTR);
	if ((mop == MT_OP_ADD || mop == MT_OP_SUB) && (lp != rp)) {
		struct type *pt = lp ? lt : rt;
		uint32_t esz = pt->canon->base ? pt->canon->base->canon->size : 1;
		if (esz > 1) {
			int s = cg_const(cc, esz, line);
			int idx = lp ? b : a;
			emit(cc, MT_OP_MUL, idx, s, idx);
			cg_free(cc, s);
		}
	}
	emit(cc, mop, a, b, a);
	if (lp && rp && mop == MT_OP_SUB) {
		uint32_t esz = lt->canon->base ? lt->canon->base->canon->size : 1;
		if (esz > 1) {
			int s = cg_const(cc, esz, line);
			emit(cc, MT_OP_SDIV, a, s, a);
			cg_free(cc, s);
		}
	}
}

/*
 * The D variable a member/element lvalue is stored in, if any: stores into
 * variable storage go through a scratch copy of the whole value, which is
 * then stored back into the variable (the runtime only lets code store
 * into scratch).
 */
static struct node *var_root(struct node *l)
{
	while (l) {
		if (l->k == N_MEMBER && l->op == OP_DOT)
			l = l->l;
		else if (l->k == N_OP2 && l->op == OP_INDEX && l->scope == -2 &&
			 TY_K(l->l->type) == T_ARRAY)
			l = l->l;
		else
			break;
	}
	if (l && (l->k == N_VAR || (l->k == N_IDENT && l->id && l->id->k == ID_VAR)) &&
	    is_byref(l->type) && !ty_is_string(l->type))
		return l;
	return NULL;
}

static void cg_store(struct cc *cc, struct node *l, int r);

static void cg_store_via_scratch(struct cc *cc, struct node *root, struct node *l, int r)
{
	if (root->k == N_IDENT)
		root->scope = root->id->scope;
	int v = cg_var_load(cc, root);
	int sz = cg_const(cc, root->type->canon->size, l->line);
	int buf = reg_alloc(cc, l->line);
	emit(cc, MT_OP_ALLOCS, sz, 0, buf);
	emit(cc, MT_OP_TST, v, 0, 0);
	uint32_t skip = emit_br(cc, MT_OP_BE);
	emit(cc, MT_OP_COPYS, v, sz, buf);
	patch_here(cc, skip);
	cg_free(cc, v);
	cg_free(cc, sz);
	struct node *orn = cc->cg_root;
	int orr = cc->cg_rootreg;
	cc->cg_root = root;
	cc->cg_rootreg = buf;
	cg_store(cc, l, r);
	cc->cg_root = orn;
	cc->cg_rootreg = orr;
	cg_var_store(cc, root, buf);
	cg_free(cc, buf);
}

/* Store r into lvalue l (variable, member, deref), with l's width. */
static void cg_store(struct cc *cc, struct node *l, int r)
{
	if (l->k == N_VAR) {
		cg_var_store(cc, l, r);
		return;
	}
	if (!cc->cg_root) {
		struct node *root = var_root(l);
		if (root && root != l) {
			cg_store_via_scratch(cc, root, l, r);
			return;
		}
	}
	if (l->k == N_MEMBER) {
		struct member *m = node_member(cc, l);
		if (m && m->bits) {
			/* read-modify-write of the storage unit */
			int a = cg_addr(cc, l);
			int u = reg_alloc(cc, l->line);
			emit(cc, unit_load_op(m), a, 0, u);
			uint64_t mask = (m->bits == 64 ? ~0ULL : ((1ULL << m->bits) - 1)) << m->bitoff;
			int mk = cg_const(cc, (int64_t)~mask, l->line);
			emit(cc, MT_OP_AND, u, mk, u);
			cg_free(cc, mk);
			int v = reg_alloc(cc, l->line);
			emit(cc, MT_OP_MOV, r, 0, v);
			int sh = cg_const(cc, m->bitoff, l->line);
			emit(cc, MT_OP_SLL, v, sh, v);
			cg_free(cc, sh);
			mk = cg_const(cc, (int64_t)mask, l->line);
			emit(cc, MT_OP_AND, v, mk, v);
			cg_free(cc, mk);
			emit(cc, MT_OP_OR, u, v, u);
			emit(cc, store_op(m->usize ? m->usize : m->type->canon->size),
			     u, 0, a);
			cg_free(cc, v);
			cg_free(cc, u);
			cg_free(cc, a);
			return;
		}
	}
	int a = cg_addr(cc, l);
	if (is_byref(l->type)) {
		uint32_t sz = ty_is_string(l->type) ? cc->strsize : l->type->canon->size;
		int s = cg_const(cc, sz, l->line);
		emit(cc, MT_OP_COPYS, r, s, a);
		cg_free(cc, s);
	} else {
		emit(cc, store_op(l->type->canon->size), r, 0, a);
	}
	cg_free(cc, a);
}

static int cg_lvalue_load(struct cc *cc, struct node *l)
{
	if (l->k == N_VAR)
		return cg_var_load(cc, l);
	return cg_expr(cc, l);
}

static int cg_assign(struct cc *cc, struct node *n)
{
	struct node *l = n->l;
	int cur = 0;
	if (n->op != OP_ASSIGN)		/* the left operand is read first */
		cur = cg_lvalue_load(cc, l);
	int r = cg_expr(cc, n->r);
	if (n->op != OP_ASSIGN) {
		cg_arith(cc, n->op, cur, r, l->type, n->r->type, l->type, n->line);
		cg_free(cc, r);
		r = cur;
	}
	if (!is_byref(l->type) && ty_is_integral(l->type))
		cg_extend(cc, r, l->type, n->line);
	cg_store(cc, l, r);
	return r;
}

static int cg_incdec(struct cc *cc, struct node *n)
{
	struct node *l = n->l;
	int cur = cg_lvalue_load(cc, l);
	int post = n->op == OP_POSTINC || n->op == OP_POSTDEC;
	int inc = n->op == OP_POSTINC || n->op == OP_PREINC;
	int res = reg_alloc(cc, n->line);
	uint32_t step = 1;
	if (TY_K(l->type) == T_PTR)
		step = l->type->canon->base->canon->size;
	int s = cg_const(cc, step, n->line);
	emit(cc, inc ? MT_OP_ADD : MT_OP_SUB, cur, s, res);
	cg_free(cc, s);
	cg_extend(cc, res, l->type, n->line);
	cg_store(cc, l, res);
	if (post) {
		cg_free(cc, res);
		return cur;
	}
	cg_free(cc, cur);
	return res;
}

static int cg_op1(struct cc *cc, struct node *n)
{
	int r;
	switch (n->op) {
	case OP_CAST:
		r = cg_expr(cc, n->l);
		if (ty_is_integral(n->type))
			cg_extend(cc, r, n->type, n->line);
		return r;
	case OP_STRINGOF:
		if (ty_is_integral(n->l->type)) {
			/* an integer's decimal text, as lltostr() */
			r = cg_expr(cc, n->l);
			emit(cc, MT_OP_PUSHTV, MT_TT_INT, 0, r);
			emit(cc, MT_OP_CALL, 0, 0, r);
			cc->text_v.v[cc->text_v.n - 1] =
				MT_INSTR_V16(MT_OP_CALL, MT_SUBR_LLTOSTR, r);
			return r;
		}
		r = cg_expr(cc, n->l);
		if (n->alloca_str)
			cg_alloca_str(cc, r);
		return r;
	case OP_DEREF:
		r = cg_expr(cc, n->l);
		cg_load(cc, r, n->type);
		return r;
	case OP_ADDROF:
		return cg_addr(cc, n->l);
	case OP_POS:
		return cg_expr(cc, n->l);
	case OP_NEG:
		r = cg_expr(cc, n->l);
		emit(cc, MT_OP_SUB, 0, r, r);
		return r;
	case OP_BNOT:
		r = cg_expr(cc, n->l);
		emit(cc, MT_OP_NOT, r, 0, r);
		return r;
	case OP_LNOT:
		r = cg_expr(cc, n->l);
		emit(cc, MT_OP_TST, r, 0, 0);
		cg_free(cc, r);
		return cg_setcc(cc, MT_OP_BE, n->line);
	default:
		return cg_incdec(cc, n);
	}
}

static int cg_op2(struct cc *cc, struct node *n)
{
	int a, b;
	switch (n->op) {
	case OP_INDEX:
		if (n->scope == -3) {
			/* parameterized inline: bind the parameters, expand */
			struct ident *id = n->id;
			int regs[16], saved[16], k = 0;
			for (struct node *a = n->args; a && k < 16; a = a->next, k++) {
				regs[k] = cg_expr(cc, a);
				saved[k] = id->params[k]->preg;
			}
			for (int i = 0; i < k; i++)
				id->params[i]->preg = regs[i];
			cc_nest_in(cc);
			int r = cg_expr(cc, id->init);
			cc_nest_out(cc);
			for (int i = 0; i < k; i++) {
				id->params[i]->preg = saved[i];
				cg_free(cc, regs[i]);
			}
			if (ty_is_integral(id->type))
				cg_extend(cc, r, id->type, n->line);
			return r;
		}
		if (n->scope == -1) {
			/* args[i]: LDGA */
			int i = cg_expr(cc, n->args);
			int rd = reg_alloc(cc, n->line);
			emit(cc, MT_OP_LDGA, n->id->id, i, rd);
			cg_free(cc, i);
			if (ty_is_integral(n->type))
				cg_extend(cc, rd, n->type, n->line);
			return rd;
		}
		a = cg_addr(cc, n);
		cg_load(cc, a, n->type);
		return a;
	case OP_COMMA:
		cg_free(cc, cg_expr(cc, n->l));
		return cg_expr(cc, n->r);
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
		return cg_compare(cc, n);
	case OP_LAND: case OP_LOR: case OP_LXOR:
		return cg_logical(cc, n);
	}
	cg_operands(cc, n->l, n->r, &a, &b);
	cg_arith(cc, n->op, a, b, n->l->type, n->r->type, n->type, n->line);
	cg_free(cc, b);
	return a;
}

/*
 * x ? l : r.  The result lives in l's register.  That register is not
 * live on the path that evaluates r, so it is free while r is generated
 * and taken back after r is moved into it: nested ?: in the false arm
 * then need no extra register per level.
 */
static int cg_cond(struct cc *cc, struct node *n)
{
	int c = cg_expr(cc, n->x);
	emit(cc, MT_OP_TST, c, 0, 0);
	cg_free(cc, c);
	uint32_t bf = emit_br(cc, MT_OP_BE);
	int rd = cg_expr(cc, n->l);
	uint32_t be = emit_br(cc, MT_OP_BA);
	patch_here(cc, bf);
	cg_free(cc, rd);
	int b = cg_expr(cc, n->r);
	if (b != rd) {
		emit(cc, MT_OP_MOV, b, 0, rd);
		cg_free(cc, b);
	}
	cc->regmask |= (uint16_t)(1u << rd);
	patch_here(cc, be);
	return rd;
}

static int cg_expr(struct cc *cc, struct node *n)
{
	int r;
	if (n == cc->cg_root) {
		r = reg_alloc(cc, n->line);
		emit(cc, MT_OP_MOV, cc->cg_rootreg, 0, r);
		return r;
	}
	if (n->is_const && ty_is_integral(n->type))
		return cg_const(cc, n->cval, n->line);
	switch (n->k) {
	case N_INT:
		return cg_const(cc, n->cval, n->line);
	case N_STRING:
		r = reg_alloc(cc, n->line);
		as_emit(cc, MT_INSTR_V16(MT_OP_SETS, as_str(cc, n->name, n->slen), r));
		return r;
	case N_IDENT: {
		struct ident *id = n->id;
		if (id->k == ID_BVAR) {
			r = reg_alloc(cc, n->line);
			as_emit(cc, MT_INSTR_V16(MT_OP_LDGS, id->id, r));
			return r;
		}
		if (id->k == ID_INLINE) {
			if (id->param) {
				r = reg_alloc(cc, n->line);
				emit(cc, MT_OP_MOV, id->preg, 0, r);
				return r;
			}
			if (id->val == 1) {
				r = reg_alloc(cc, n->line);
				emit(cc, MT_OP_MOV, cc->cg_xlarg, 0, r);
				return r;
			}
			/* inlines expand in place: a chain of them recurses */
			cc_nest_in(cc);
			r = cg_expr(cc, id->init);
			cc_nest_out(cc);
			if (ty_is_integral(id->type))
				cg_extend(cc, r, id->type, n->line);
			return r;
		}
		if (id->k == ID_VAR) {
			n->scope = id->scope;
			return cg_var_load(cc, n);
		}
		return cg_const(cc, n->cval, n->line);
	}
	case N_VAR:
		return cg_var_load(cc, n);
	case N_FUNC:
		if (n->id->k != ID_SUBR)
			cc_error(cc, n->line, D_OP_ACT,
				 "action cannot be used in a conditional context");
		return cg_call(cc, n);
	case N_OP1:
		return cg_op1(cc, n);
	case N_OP2:
		return cg_op2(cc, n);
	case N_OP3:
		return cg_cond(cc, n);
	case N_ASSIGN:
		return cg_assign(cc, n);
	case N_MEMBER: {
		struct member *m = node_member(cc, n);
		struct xlmember *xm;
		struct node *x = xlate_of(cc, n, &xm);
		if (x)
			return cg_xlate_member(cc, n, x, xm);
		r = cg_addr(cc, n);
		if (m->bits) {
			emit(cc, unit_load_op(m), r, 0, r);
			cg_bitfield(cc, r, m, n->line);
			return r;
		}
		cg_load(cc, r, n->type);
		return r;
	}
	case N_XLATE:
		return cg_xlate(cc, n);
	default:
		cc_error(cc, n->line, D_UNKNOWN, "cannot generate code for node %d", n->k);
	}
}

/* Compile one expression into a DIFO; returns its index + 1. */
uint32_t cg_difo(struct cc *cc, struct node *n, uint32_t *rtype, uint32_t *rsize)
{
	uint32_t t0 = as_difo_begin(cc);
	uint32_t ot0 = cc->cg_text0;
	uint16_t omask = cc->regmask;
	uint32_t onspill = cc->cg_nspill;
	cc->cg_text0 = t0;
	cc->regmask = 0;
	cc->cg_nspill = 0;
	int r = cg_expr(cc, n);
	emit(cc, MT_OP_RET, 0, 0, r);
	cc->regmask = omask;
	cc->cg_nspill = onspill;
	cc->cg_text0 = ot0;
	uint32_t rt = MT_RT_INT, rs = 8;
	if (ty_is_string(n->type)) {
		rt = MT_RT_STRING;
		rs = cc->strsize;
	} else if (is_byref(n->type)) {
		rt = MT_RT_REF;
		rs = n->type->canon->size;
	}
	if (rtype)
		*rtype = rt;
	if (rsize)
		*rsize = rs;
	return as_difo_end(cc, t0, rt, rs);
}

/*
 * Whether the scratch an expression statement allocates is dead once it
 * has run (MT_RF_TEMPS), as dtrace-utils frees a temporary string once
 * its value is consumed.  Only integers and strings may appear: a string
 * stored into a variable is copied, so no scratch address outlives the
 * statement unless a pointer (alloca, copyin, a cast) or a string cast to
 * an integer carries it, or strtok() keeps its string for the next call.
 */
static int temps_dead_list(const struct node *n)
{
	for (; n; n = n->next)
		if (!cg_temps_dead(n))
			return 0;
	return 1;
}

int cg_temps_dead(const struct node *n)
{
	if (!n)
		return 1;
	if (n->is_alloca || !n->type ||
	    (!ty_is_integral(n->type) && !ty_is_string(n->type)))
		return 0;
	if (n->k == N_OP1 && n->op == OP_CAST && n->l &&
	    (!n->l->type || !ty_is_integral(n->l->type)))
		return 0;
	if (n->k == N_FUNC) {
		if (!n->id || n->id->k != ID_SUBR || n->id->id == MT_SUBR_STRTOK)
			return 0;
	} else if (!cg_temps_dead(n->l)) {
		return 0;
	}
	return cg_temps_dead(n->r) && cg_temps_dead(n->x) &&
	       temps_dead_list(n->args);
}
