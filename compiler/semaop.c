/*
 * Cooking of operators: unary, binary and ternary operators, member
 * access, casts, sizeof/stringof, with constant folding in 64 bits and
 * dtrace's operand diagnostics.  Split from sema.c, which resolves
 * identifiers, variables, calls and assignments.
 */
#include <string.h>
#include "cc.h"

#define ERR(n, tag, ...) cc_error(cc, (n)->line, tag, __VA_ARGS__)

void sema_member(struct cc *cc, struct node *n)
{
	if (ctypes_local(cc, n))
		return;
	sema_expr(cc, n->l);
	struct type *t = n->l->type;
	if (n->op == OP_ARROW) {
		if (TY_K(t) != T_PTR)
			ERR(n, D_OP_PTR, "operator -> must be applied to a pointer");
		t = t->canon->base;
		if (!ty_is_sou(t))
			ERR(n, D_OP_SOU, "operator -> cannot be applied to pointer to type \"%s\"; must be applied to a struct or union pointer",
			    t->name);
	} else if (!ty_is_sou(t)) {
		ERR(n, D_OP_SOU, "operator . cannot be applied to type \"%s\"; must be applied to a struct or union",
		    t->name);
	}
	if (!t->canon->complete && !ctypes_complete(cc, t, n->line))
		ERR(n, D_OP_INCOMPLETE, "operator %s cannot be applied to a forward declaration: no %s definition is available",
		    op_name(n->op), t->name);
	struct member *m = ty_member(cc, t, n->name);
	if (!m)
		ERR(n, D_TYPE_MEMBER, "%s is not a member of %s", n->name, t->name);
	if (n->l->k == N_XLATE && n->l->xl) {
		/* a translated struct has only the members its translator defines */
		struct xlmember *xm = n->l->xl->members;
		while (xm && strcmp(xm->name, n->name) != 0)
			xm = xm->next;
		if (!xm)
			ERR(n, D_XLATE_NOCONV,
			    "translator does not define conversion for member: %s",
			    n->name);
	}
	n->type = m->type;
	n->lvalue = n->op == OP_ARROW || n->l->lvalue;
	n->writable = n->l->writable;
}

/*
 * Constant folding in 64 bits as the DIF machine computes: + - * and the
 * negation of INT64_MIN wrap (two's complement), so they are done on
 * uint64_t, where C defines the wrap.
 */
static int64_t neg64(int64_t a)
{
	return (int64_t)(0 - (uint64_t)a);
}

static int64_t fold2(struct cc *cc, struct node *n, int64_t a, int64_t b, int uns)
{
	switch (n->op) {
	case OP_PLUS: return (int64_t)((uint64_t)a + (uint64_t)b);
	case OP_MINUS: return (int64_t)((uint64_t)a - (uint64_t)b);
	case OP_STAR: return (int64_t)((uint64_t)a * (uint64_t)b);
	case OP_SLASH:
		if (b == 0)
			ERR(n, D_DIV_ZERO, "expression contains division by zero");
		return uns ? (int64_t)((uint64_t)a / (uint64_t)b) : (b == -1 ? neg64(a) : a / b);
	case OP_MOD:
		if (b == 0)
			ERR(n, D_DIV_ZERO, "expression contains division by zero");
		return uns ? (int64_t)((uint64_t)a % (uint64_t)b) : (b == -1 ? 0 : a % b);
	case OP_AMP: return a & b;
	case OP_BOR: return a | b;
	case OP_XOR: return a ^ b;
	case OP_SHL: return (int64_t)((uint64_t)a << (b & 63));
	case OP_SHR: return uns ? (int64_t)((uint64_t)a >> (b & 63)) : a >> (b & 63);
	case OP_LAND: return a && b;
	case OP_LOR: return a || b;
	case OP_LXOR: return !a != !b;
	case OP_EQ: return a == b;
	case OP_NE: return a != b;
	case OP_LT: return uns ? (uint64_t)a < (uint64_t)b : a < b;
	case OP_LE: return uns ? (uint64_t)a <= (uint64_t)b : a <= b;
	case OP_GT: return uns ? (uint64_t)a > (uint64_t)b : a > b;
	case OP_GE: return uns ? (uint64_t)a >= (uint64_t)b : a >= b;
	}
	return 0;
}

static int is_ptr_compat(struct node *l, struct node *r)
{
	if (ty_is_ptrlike(l->type) && ty_is_ptrlike(r->type))
		return ty_compat(l->type, r->type);
	if (ty_is_ptrlike(l->type) && r->is_const && r->cval == 0 && ty_is_integral(r->type))
		return 1;
	if (ty_is_ptrlike(r->type) && l->is_const && l->cval == 0 && ty_is_integral(l->type))
		return 1;
	return 0;
}

static int is_vfptr(struct type *t)
{
	if (TY_K(t) != T_PTR)
		return 0;
	struct type *b = t->canon->base;
	return ty_is_void(b) || TY_K(b) == T_FUNC;
}

/* NULL-like: void pointers and the integer constant 0 */
static int is_nullish(struct node *n)
{
	return (TY_K(n->type) == T_PTR && ty_is_void(n->type->canon->base)) ||
	       (n->is_const && n->cval == 0 && ty_is_integral(n->type));
}

/*
 * A tag of the left operand's enum on the right of a comparison is the
 * tag, unless a global of its name (other than the tag itself) makes it
 * ambiguous: dtrace's D_IDENT_AMBIG (a target's enum beside a program
 * variable of the same name).
 */
static void enum_ambig(struct cc *cc, struct node *n, struct node *l,
		       struct node *r)
{
	struct ident *g = id_lookup(&cc->globals, r->name);

	if (!g || (g->k == ID_ENUMC && g->type == l->type))
		return;
	ERR(n, D_IDENT_AMBIG, "ambiguous use of operator %s: %s is both a %s enum tag and a global %s",
	    op_name(n->op), r->name, sema_tname(l),
	    g->k == ID_ENUMC ? "enumerator" :
	    g->k == ID_INLINE ? "inline" :
	    g->k == ID_VAR && g->is_assoc == 1 ? "associative array" :
	    g->k == ID_VAR || g->k == ID_BVAR ? "scalar" : "function");
}

void sema_op2(struct cc *cc, struct node *n)
{
	struct node *l = n->l, *r = n->r;
	const char *ops = op_name(n->op);
	int op = n->op;

	if (op == OP_INDEX) {
		sema_index(cc, n, 0, NULL);
		return;
	}
	sema_expr(cc, l);
	/* enum tags on the right of a comparison with an enum */
	if ((op == OP_EQ || op == OP_NE || op == OP_LT || op == OP_LE || op == OP_GT ||
	     op == OP_GE) && TY_K(l->type) == T_ENUM && r->k == N_IDENT) {
		for (struct enumc *e = l->type->canon->enums; e; e = e->next)
			if (strcmp(e->name, r->name) == 0) {
				enum_ambig(cc, n, l, r);
				r->k = N_INT;
				r->type = l->type;
				sema_set_const(r, e->val);
			}
	}
	if (r->k != N_INT || !r->type)
		sema_expr(cc, r);
	if (op == OP_COMMA) {
		if (l->is_agg || r->is_agg)
			ERR(n, D_OP_DYN, "operator %s operands cannot be of dynamic type", ops);
		if (l->is_action || r->is_action)
			ERR(n, D_OP_ACT, "operator %s operands cannot be actions", ops);
		n->type = r->type;
		return;
	}
	if (l->is_action || r->is_action)
		ERR(n, D_OP_ACT, "action cannot be used in a conditional context");
	int uns = 0;
	switch (op) {
	case OP_AMP: case OP_XOR: case OP_BOR: case OP_MOD:
		if (!ty_is_integral(l->type) || !ty_is_integral(r->type))
			ERR(n, D_OP_INT, "operator %s requires operands of integral type", ops);
		n->type = sema_promote2(cc, l->type, r->type);
		break;
	case OP_SHL: case OP_SHR:
		if (!ty_is_integral(l->type) || !ty_is_integral(r->type))
			ERR(n, D_OP_INT, "operator %s requires operands of integral type", ops);
		n->type = sema_promote1(cc, l->type);
		break;
	case OP_STAR: case OP_SLASH:
		if (!ty_is_arith(l->type) || !ty_is_arith(r->type))
			ERR(n, D_OP_ARITH, "operator %s requires operands of arithmetic type", ops);
		n->type = sema_promote2(cc, l->type, r->type);
		break;
	case OP_LAND: case OP_LOR: case OP_LXOR:
		if (!ty_is_scalar(l->type) || !ty_is_scalar(r->type))
			ERR(n, D_OP_SCALAR, "operator %s requires operands of scalar type", ops);
		n->type = cc->t_int;
		break;
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
		if (ty_same(l->type, r->type) && !ty_is_sou(l->type))
			;
		else if (ty_is_arith(l->type) && ty_is_arith(r->type))
			;
		else if ((ty_is_string(l->type) || ty_is_charptr(l->type)) &&
			 (ty_is_string(r->type) || ty_is_charptr(r->type)) &&
			 (ty_is_string(l->type) || ty_is_string(r->type)))
			;
		else if ((ty_is_string(l->type) && (is_nullish(r))) ||
			 (ty_is_string(r->type) && (is_nullish(l))))
			;
		else if (!is_ptr_compat(l, r))
			ERR(n, D_OP_INCOMPAT, "operands have incompatible types: \"%s\" %s \"%s\"",
			    sema_tname(l), ops, sema_tname(r));
		if (ty_is_sou(l->type))
			ERR(n, D_OP_INCOMPAT, "operands have incompatible types: \"%s\" %s \"%s\"",
			    sema_tname(l), ops, sema_tname(r));
		n->type = cc->t_int;
		if (ty_is_integral(l->type) && ty_is_integral(r->type)) {
			struct type *pt = sema_promote2(cc, l->type, r->type);
			uns = !pt->canon->is_signed;
		} else {
			uns = 1;
		}
		break;
	case OP_PLUS: case OP_MINUS: {
		n->is_alloca = l->is_alloca || r->is_alloca;
		/* pointers to void or functions have no size to scale by */
		int lp = ty_is_string(l->type) || (ty_is_ptrlike(l->type) && !is_vfptr(l->type));
		int rp = ty_is_string(r->type) || (ty_is_ptrlike(r->type) && !is_vfptr(r->type));
		int li = ty_is_integral(l->type), ri = ty_is_integral(r->type);
		if (ty_is_arith(l->type) && ty_is_arith(r->type))
			n->type = sema_promote2(cc, l->type, r->type);
		else if (lp && ri)
			n->type = TY_K(l->type) == T_ARRAY ? ty_ptr(cc, l->type->canon->base) : l->type;
		else if (li && rp && op == OP_PLUS)
			n->type = TY_K(r->type) == T_ARRAY ? ty_ptr(cc, r->type->canon->base) : r->type;
		else if (lp && rp && op == OP_MINUS && ty_compat(l->type, r->type))
			n->type = ty_lookup(cc, "ptrdiff_t");
		else
			ERR(n, D_OP_INCOMPAT, "operands have incompatible types: \"%s\" %s \"%s\"",
			    sema_tname(l), ops, sema_tname(r));
		break;
	}
	default:
		ERR(n, D_UNKNOWN, "invalid binary op %s", ops);
	}
	if (l->is_const && r->is_const && n->type && ty_is_integral(n->type)) {
		if (op != OP_EQ && op != OP_NE && op < OP_LT)
			uns = !n->type->canon->is_signed;
		/* as dtrace: folded in 64 bits, typed by the value */
		int64_t v = fold2(cc, n, l->cval, r->cval, uns);
		if (v < INT32_MIN || v > INT32_MAX)
			n->type = n->type->canon->size == 8 ? n->type : cc->t_long;
		n->is_const = 1;
		n->cval = v;
	} else if (r->is_const && r->cval == 0 && (op == OP_SLASH || op == OP_MOD) &&
		   ty_is_integral(r->type)) {
		ERR(n, D_DIV_ZERO, "expression contains division by zero");
	}
}

static int64_t type_sizeof(struct cc *cc, struct node *n, struct type *t)
{
	if (ty_is_string(t))
		return cc->strsize - 1;
	if ((ty_is_sou(t) || TY_K(t) == T_ENUM) && !t->canon->complete)
		ctypes_complete(cc, t, n->line);
	if (TY_K(t) == T_FUNC || ty_is_void(t) ||
	    ((ty_is_sou(t) || TY_K(t) == T_ENUM) && !t->canon->complete))
		ERR(n, D_SIZEOF_TYPE, "cannot apply sizeof to an operand of unknown size");
	return t->canon->size;
}

void sema_op1(struct cc *cc, struct node *n)
{
	struct node *c = n->l;
	const char *ops = op_name(n->op);

	switch (n->op) {
	case OP_SIZEOF:
		if (n->ctype) {
			n->type = cc->t_size;
			sema_set_const(n, type_sizeof(cc, n, n->ctype));
			return;
		}
		sema_expr(cc, c);
		if (c->k == N_MEMBER && c->op) {
			struct member *m = NULL;
			struct type *t = c->l->type;
			if (c->op == OP_ARROW && TY_K(t) == T_PTR)
				t = t->canon->base;
			m = ty_member(cc, t, c->name);
			if (m && m->bits)
				ERR(n, D_SIZEOF_BITFIELD, "cannot apply sizeof to a bit-field");
		}
		n->type = cc->t_size;
		if (c->is_action || c->is_agg)
			ERR(n, D_SIZEOF_TYPE, "cannot apply sizeof to an operand of unknown size");
		if (c->k == N_STRING)	/* a literal's own bytes, as dtrace */
			sema_set_const(n, (int64_t)strlen(c->strval) + 1);
		else
			sema_set_const(n, type_sizeof(cc, n, c->type));
		return;
	case OP_STRINGOF:
		sema_expr(cc, c);
		if (!ty_is_scalar(c->type) && !ty_is_string(c->type))
			ERR(n, D_STRINGOF_TYPE, "cannot apply stringof to a value of type %s",
			    sema_tname(c));
		n->type = cc->t_string;
		n->alloca_str = c->is_alloca;
		if (c->is_string_lit) {
			n->is_string_lit = 1;
			n->strval = c->strval;
		}
		return;
	case OP_CAST:
		sema_expr(cc, c);
		{
			/*
			 * dtrace's casts (dt_cook_op2): to the same type, between
			 * scalars (an array is none: it casts only to the same
			 * array type, or to a pointer), to void, a pointer or an
			 * array to a pointer or a string.
			 */
			struct type *to = n->ctype, *from = c->type;
			int sto = ty_is_arith(to) || TY_K(to) == T_PTR;
			int sfrom = ty_is_arith(from) || TY_K(from) == T_PTR;
			int ok = ty_same(to, from) ||
				 (sto && (sfrom || TY_K(from) == T_FUNC)) ||
				 ty_is_void(to) ||
				 (TY_K(to) == T_PTR && ty_is_ptrlike(from)) ||
				 (ty_is_string(to) && (sfrom || ty_is_ptrlike(from) ||
						       ty_is_string(from)));
			if (!ok || c->is_action)
				ERR(n, D_CAST_INVAL, "invalid cast expression: \"%s\" to \"%s\"",
				    sema_tname(c), to->name);
			n->type = to;
			n->is_alloca = c->is_alloca;
			n->nonassign = c->nonassign;
			if (c->is_const && ty_is_integral(to))
				sema_set_const(n, c->cval);
		}
		return;
	}
	if (n->op == OP_PREINC || n->op == OP_PREDEC || n->op == OP_POSTINC ||
	    n->op == OP_POSTDEC) {
		if (c->k == N_IDENT) {
			struct ident *id = id_lookup(&cc->globals, c->name);
			if (!id && strchr(c->name, '`')) {	/* a kernel global */
				sema_expr(cc, c);
				ERR(n, D_OP_WRITE, "operator %s can only be applied to a writable variable", ops);
			}
			if (!id) {
				c->k = N_VAR;
				c->scope = 0;
				id = sema_var(cc, c, 1);
				id->is_assoc = 0;
				id->type = cc->t_int64;
			}
		} else if (c->k == N_VAR && c->op != OP_INDEX) {
			struct ident *id = sema_var(cc, c, 1);
			if (!id->type) {
				id->is_assoc = 0;
				id->type = cc->t_int64;
			}
		} else if (c->k == N_OP2 && c->op == OP_INDEX) {
			sema_index(cc, c, 1, NULL);
			if (c->id && !c->id->type)
				c->id->type = cc->t_int64;
		}
		if (c->k == N_IDENT && id_lookup(&cc->globals, c->name)->k == ID_VAR)
			c->k = N_VAR, c->scope = 0;
	}
	if (!c->type || c->k != N_VAR || c->op != OP_INDEX)
		sema_expr(cc, c);
	switch (n->op) {
	case OP_DEREF:
		if (!ty_is_ptrlike(c->type))
			ERR(n, D_DEREF_NONPTR, "cannot dereference non-pointer type");
		n->type = c->type->canon->base;
		if (ty_is_void(n->type))
			ERR(n, D_DEREF_VOID, "cannot dereference pointer to void");
		if (TY_K(n->type) == T_FUNC)
			ERR(n, D_DEREF_FUNC, "cannot dereference pointer to function");
		n->lvalue = 1;
		n->writable = c->writable;
		break;
	case OP_POS: case OP_NEG:
		if (!ty_is_arith(c->type))
			ERR(n, D_OP_ARITH, "operator %s requires an operand of arithmetic type", ops);
		n->type = sema_promote1(cc, c->type);
		if (c->is_const)
			sema_set_const(n, n->op == OP_NEG ? neg64(c->cval) : c->cval);
		break;
	case OP_BNOT:
		if (!ty_is_integral(c->type))
			ERR(n, D_OP_INT, "operator %s requires an operand of integral type", ops);
		n->type = sema_promote1(cc, c->type);
		if (c->is_const)
			sema_set_const(n, ~c->cval);
		break;
	case OP_LNOT:
		if (!ty_is_scalar(c->type))
			ERR(n, D_OP_SCALAR, "operator %s requires an operand of scalar type", ops);
		n->type = cc->t_int;
		if (c->is_const)
			sema_set_const(n, !c->cval);
		break;
	case OP_ADDROF:
		if (c->k == N_VAR || c->k == N_AGG || c->is_agg ||
		    (c->k == N_IDENT && c->id && c->id->k == ID_VAR))
			ERR(n, D_ADDROF_VAR, "cannot take address of dynamic variable");
		if (!c->lvalue)
			ERR(n, D_ADDROF_LVAL, "unacceptable operand for unary & operator");
		if (c->k == N_MEMBER) {
			struct type *t = c->l->type;
			if (c->op == OP_ARROW)
				t = t->canon->base;
			struct member *m = ty_member(cc, t, c->name);
			if (m && m->bits)
				ERR(n, D_ADDROF_BITFIELD, "cannot take address of bit-field");
		}
		n->type = ty_ptr(cc, c->type);
		break;
	default:	/* ++ -- */
		if (!ty_is_scalar(c->type))
			ERR(n, D_OP_SCALAR, "operator %s requires operand of scalar type", ops);
		if (TY_K(c->type) == T_PTR && ty_is_void(c->type->canon->base))
			ERR(n, D_OP_VFPTR, "operator %s requires an operand of known size", ops);
		if (!c->lvalue)
			ERR(n, D_OP_LVAL, "operator %s requires modifiable lvalue as an operand", ops);
		if (!c->writable)
			ERR(n, D_OP_WRITE, "operator %s can only be applied to a writable variable", ops);
		n->type = c->type;
	}
}

void sema_op3(struct cc *cc, struct node *n)
{
	sema_expr(cc, n->x);
	sema_expr(cc, n->l);
	sema_expr(cc, n->r);
	if (!ty_is_scalar(n->x->type))
		ERR(n, D_OP_SCALAR, "operator ?: expression must be of scalar type");
	struct node *l = n->l, *r = n->r;
	if (l->is_agg || r->is_agg)
		ERR(n, D_OP_DYN, "operator ?: operands cannot be of dynamic type");
	if (ty_same(l->type, r->type))
		n->type = l->type;
	else if (ty_is_integral(l->type) && ty_is_integral(r->type))
		n->type = sema_promote2(cc, l->type, r->type);
	else if ((ty_is_string(l->type) || ty_is_charptr(l->type)) &&
		 (ty_is_string(r->type) || ty_is_charptr(r->type)))
		n->type = cc->t_string;
	else if (is_ptr_compat(l, r))
		n->type = ty_is_ptrlike(l->type) ? l->type : r->type;
	else
		ERR(n, D_OP_INCOMPAT, "operator ?: operands must have compatible types");
	if (l->is_action || r->is_action)
		ERR(n, D_OP_ACT, "action cannot be used in a conditional context");
	if (l->is_alloca != r->is_alloca || l->nonassign || r->nonassign)
		n->nonassign = 1;
	n->is_alloca = l->is_alloca;
	if (n->x->is_const && l->is_const && r->is_const && ty_is_integral(n->type))
		sema_set_const(n, n->x->cval ? l->cval : r->cval);
}

