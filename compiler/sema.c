/*
 * Semantic checks ("cooking", as dtrace calls it): resolve identifiers,
 * create variables on first assignment, compute the type of every node,
 * fold integer constants, and report dtrace's diagnostics.
 */
#include <stdio.h>
#include <string.h>
#include "cc.h"

#define ERR(n, tag, ...) cc_error(cc, (n)->line, tag, __VA_ARGS__)

static void sema_assign_type(struct cc *cc, struct ident *id,
			     struct node *rhs, int line);

const char *sema_tname(struct node *n)
{
	if (n->is_agg)
		return "aggregation";
	return n->type ? n->type->name : "?";
}

/* D does not promote to int: the larger of the operand types wins. */
struct type *sema_promote1(struct cc *cc, struct type *t)
{
	if (TY_K(t) == T_ENUM)
		return cc->t_int;
	return t;
}

struct type *sema_promote2(struct cc *cc, struct type *a, struct type *b)
{
	a = sema_promote1(cc, a);
	b = sema_promote1(cc, b);
	if (TY_K(a) == T_FLOAT)
		return a;
	if (TY_K(b) == T_FLOAT)
		return b;
	uint32_t sa = a->canon->size, sb = b->canon->size;
	if (sa > sb)
		return a;
	if (sb > sa)
		return b;
	if (!a->canon->is_signed)
		return a;
	return b;
}

static int64_t trunc_val(struct type *t, int64_t v)
{
	uint32_t sz = t->canon->size;
	if (TY_K(t) != T_INT && TY_K(t) != T_ENUM)
		return v;
	if (sz >= 8)
		return v;
	int sh = 64 - 8 * sz;
	if (t->canon->is_signed)
		return (int64_t)((uint64_t)v << sh) >> sh;
	return (int64_t)(((uint64_t)v << sh) >> sh);
}

void sema_set_const(struct node *n, int64_t v)
{
	n->is_const = 1;
	n->cval = trunc_val(n->type, v);
}

static void int_literal(struct cc *cc, struct node *n)
{
	uint64_t v = (uint64_t)n->ival;
	int u = n->is_unsigned_lit & 1, l = (n->is_unsigned_lit >> 1) & 3;
	int hexoct = n->is_unsigned_lit & 8;
	struct type *t;
	if (!l && !u && v <= 0x7fffffffULL)
		t = cc->t_int;
	else if (!l && (u || hexoct) && v <= 0xffffffffULL)
		t = cc->t_uint;
	else if (!u && v <= 0x7fffffffffffffffULL)
		t = l == 2 ? cc->t_llong : cc->t_long;
	else
		t = l == 2 ? cc->t_ullong : cc->t_ulong;
	n->type = t;
	sema_set_const(n, (int64_t)v);
}

int sema_var_index(struct cc *cc, struct ident *id)
{
	if (id->varidx >= 0)
		return id->varidx;
	struct mt_var v = {0};
	v.scope = (uint8_t)id->scope;
	/* ids are 16 bits in the instructions, below 0xffff as dtrace's */
	if (MT_VAR_USER + cc->nuser[id->scope] >= 0xffff)
		cc_error(cc, id->line, D_ID_OFLOW, "cannot create %s: limit on number "
			 "of %s variables exceeded", id->name, id->scope == 1 ?
			 "thread local" : id->scope == 2 ? "clause local" : "global");
	v.id = (uint16_t)(MT_VAR_USER + cc->nuser[id->scope]++);
	v.kind = id->is_assoc == 1 ? MT_VK_ASSOC : MT_VK_SCALAR;
	struct type *t = id->type ? id->type : cc->t_int64;
	if (ty_is_string(t)) {
		v.flags = MT_VF_REF | MT_VF_STRING;
		v.size = cc->strsize;
	} else if (ty_is_sou(t) || TY_K(t) == T_ARRAY) {
		v.flags = MT_VF_REF;
		v.size = t->canon->size;
	} else {
		v.size = 8;
	}
	for (int i = 0; i < id->nkeys; i++)
		v.keysize += ty_is_string(id->ktypes[i]) ? cc->strsize :
			     (ty_is_sou(id->ktypes[i]) ? id->ktypes[i]->canon->size : 8);
	id->varidx = (int)cc->vars.n;
	VEC_PUSH(cc, cc->vars, v);
	char *vn = cc_printf(cc, "%s%s",
		 id->scope == 1 ? "self->" : id->scope == 2 ? "this->" : "",
		 id->name);
	VEC_PUSH(cc, cc->var_names, strdup(vn));
	return id->varidx;
}

static struct scope *scope_of(struct cc *cc, int s)
{
	return s == 1 ? &cc->tls : s == 2 ? &cc->locals : &cc->globals;
}

/* Resolve a variable reference; create it when create is set. */
struct ident *sema_var(struct cc *cc, struct node *n, int create)
{
	struct scope *s = scope_of(cc, n->scope);
	struct ident *id = id_lookup(s, n->name);
	if (!id && create) {
		id = id_add(cc, s, n->name, ID_VAR);
		id->scope = n->scope;
		id->line = n->line;
	}
	return id;
}

static void check_arg(struct cc *cc, struct node *call, const char *fname,
		      int argno, struct node *a, const char *ptype)
{
	struct type *pt;
	if (strcmp(ptype, "@") == 0)
		return;
	int voidp = strcmp(ptype, "void *") == 0;
	if (strcmp(ptype, "void *!") == 0)
		ptype = "void *";	/* bcopy()'s destination: no strings */
	if (strcmp(ptype, "char *") == 0)
		pt = cc->t_charp;
	else if (strchr(ptype, '*'))
		pt = NULL;	/* some pointer */
	else
		pt = ty_lookup(cc, ptype);
	int ok;
	if (a->is_agg || a->is_action || ty_is_void(a->type))
		ok = 0;
	else if (!pt)
		ok = ty_is_ptrlike(a->type) || (a->is_const && a->cval == 0) ||
		     (voidp && ty_is_string(a->type));
	else if (pt == cc->t_charp)
		ok = ty_is_string(a->type) || ty_is_charptr(a->type) ||
		     (a->is_const && a->cval == 0) ||
		     (TY_K(a->type) == T_PTR && ty_is_void(a->type->canon->base));
	else
		ok = ty_compat(pt, a->type) ||
		     (ty_is_ptrlike(pt) && a->is_const && a->cval == 0);
	if (!ok)
		ERR(a, D_PROTO_ARG,
		    "%s( ) argument #%d is incompatible with prototype:\n\tprototype: %s\n\t argument: %s",
		    fname, argno, ptype, sema_tname(a));
}

/* Count args and check them against id->proto. */
void sema_call_args(struct cc *cc, struct node *n, struct ident *id)
{
	int nargs = 0;
	for (struct node *a = n->args; a; a = a->next)
		nargs++;
	if (nargs < id->minargs || (id->maxargs >= 0 && nargs > id->maxargs)) {
		if (id->maxargs == id->minargs)
			ERR(n, D_PROTO_LEN,
			    "%s( ) prototype mismatch: %d arg%s passed, %d expected",
			    id->name, nargs, nargs == 1 ? "" : "s", id->minargs);
		else if (nargs < id->minargs)
			ERR(n, D_PROTO_LEN,
			    "%s( ) prototype mismatch: %d arg%s passed, at least %d expected",
			    id->name, nargs, nargs == 1 ? "" : "s", id->minargs);
		else
			ERR(n, D_PROTO_LEN,
			    "%s( ) prototype mismatch: %d arg%s passed, at most %d expected",
			    id->name, nargs, nargs == 1 ? "" : "s", id->maxargs);
	}
	const char *p = id->proto;
	int i = 0;
	for (struct node *a = n->args; a; a = a->next, i++) {
		char pt[64] = "@";
		if (p && *p) {
			while (*p == ' ')
				p++;
			const char *e = strchr(p, ',');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			if (len >= sizeof(pt))
				len = sizeof(pt) - 1;
			memcpy(pt, p, len);
			pt[len] = 0;
			if (strcmp(pt, "...") == 0) {
				strcpy(pt, "@");
			} else {
				p = e ? e + 1 : p + len;
			}
			if (pt[0] == '[') {
				memmove(pt, pt + 1, strlen(pt));
				pt[strlen(pt) - 1] = 0;
			}
		}
		if (!(a->k == N_AGG))
			sema_expr(cc, a);
		else
			a->is_agg = 1;
		if (id->k == ID_SUBR && id->id == MT_SUBR_BCOPY && i == 1 &&
		    ty_is_string(a->type))
			strcpy(pt, "void *!");
		if (id->k == ID_SUBR || strcmp(pt, "@") != 0)
			check_arg(cc, n, id->name, i + 1, a, pt);
	}
}

/*
 * Lower the program's minimum statement attributes (for -v) to those of
 * an identifier it uses; numbering as in struct mt_prog.
 */
static void cc_attr_min(struct cc *cc, int name, int data, int cls)
{
	int v[3] = { name, data, cls };
	for (int i = 0; i < 3; i++)
		if (v[i] < cc->stmt_attr[i])
			cc->stmt_attr[i] = (uint8_t)v[i];
}

/* Subroutines whose attributes dtrace declares Evolving (DT_ATTR_EVOLCMN). */
static int subr_evolving(int subr)
{
	switch (subr) {
	case MT_SUBR_D_PATH: case MT_SUBR_DDI_PATHNAME:
	case MT_SUBR_GETMAJOR: case MT_SUBR_GETMINOR:
	case MT_SUBR_HTONS: case MT_SUBR_HTONL: case MT_SUBR_HTONLL:
	case MT_SUBR_NTOHS: case MT_SUBR_NTOHL: case MT_SUBR_NTOHLL:
	case MT_SUBR_MUTEX_OWNED: case MT_SUBR_MUTEX_OWNER:
	case MT_SUBR_MUTEX_TYPE_ADAPTIVE: case MT_SUBR_MUTEX_TYPE_SPIN:
	case MT_SUBR_RW_ISWRITER: case MT_SUBR_RW_READ_HELD:
	case MT_SUBR_RW_WRITE_HELD:
		return 1;
	default:
		return 0;
	}
}

static void sema_func(struct cc *cc, struct node *n)
{
	if (n->l->k != N_IDENT)
		ERR(n, D_FUNC_IDENT, "function designator is not of function type");
	struct ident *id = id_lookup(&cc->globals, n->l->name);
	if (!id)
		ERR(n, D_FUNC_UNDEF, "undefined function name: %s", n->l->name);
	if (id->k != ID_SUBR && id->k != ID_ACTF && id->k != ID_AGGF)
		ERR(n, D_FUNC_IDKIND, "%s '%s' may not be referenced as a function",
		    id->k == ID_VAR ? (id->is_assoc == 1 ? "associative array" : "scalar") :
		    id->k == ID_ENUMC ? "enumerator" : id->k == ID_INLINE ? "inline" : "scalar",
		    id->name);
	n->id = id;
	if (id->k == ID_AGGF)
		ERR(n, D_CG_EXPR,
		    "aggregating function %s( ) may not be called from a D expression (D program context required)",
		    id->name);
	if (id->k == ID_ACTF) {
		int k = 0;
		for (struct node *a = n->args; a; a = a->next)
			k++;
		if (k < id->minargs || (id->maxargs >= 0 && k > id->maxargs))
			sema_call_args(cc, n, id);
		n->is_action = 1;
		n->type = cc->t_void;
		return;	/* arguments are checked by act.c */
	}
	sema_call_args(cc, n, id);
	n->type = id->type;
	if (subr_evolving(id->id))	/* Evolving, Evolving, Common */
		cc_attr_min(cc, 5, 5, 5);
	if (id->id == MT_SUBR_ALLOCA) {
		n->is_alloca = 1;
		uint64_t lim = cc->scratch_lim;
		if (n->args && n->args->is_const && (uint64_t)n->args->cval > lim)
			cc_error_notag(cc, n->line, "alloca(%llu) size larger than scratchsize %llu",
				       (unsigned long long)n->args->cval, (unsigned long long)lim);
	}
	if (id->id == MT_SUBR_SPECULATION)
		n->type = cc->t_int;
}

/*
 * A kernel global, `sym or mod`sym, becomes *(T *)address with the
 * target's address and DWARF type: an lvalue read with safe loads (a
 * scalar's value; a struct or array by reference, so `x.m, `p->m and &`x
 * work), not writable.  Unknown symbols get dtrace's message.
 */
/*
 * dtrace cooks a clause's statements before its predicate, unless a
 * statement names something undefined (D_IDENT_UNDEF, D_VAR_UNDEF): then
 * the predicate is cooked first -- it may be what creates the variable,
 * and its own errors are the ones reported -- and the statements after it
 * (dt_cook_clause).  While act.c cooks the statements ahead of the
 * predicate, cc->cl.pred holds it; every site about to report an
 * undefined name calls this first and, when it returns 1, cooks its node
 * again.  Nodes cooked before stay cooked, as in a second pass over the
 * statements (sema_expr skips them), so nothing is rolled back.
 */
int sema_pred_first(struct cc *cc)
{
	struct node *pred = cc->cl.pred;
	int nest = cc->nest;

	if (!pred)
		return 0;
	cc->cl.pred = NULL;
	cc->nest = 0;
	sema_expr(cc, pred);
	cc->nest = nest;
	return 1;
}

static void sema_ksym(struct cc *cc, struct node *n)
{
	uint64_t addr = 0;
	struct type *t = ctypes_symbol(cc, n->name, &addr, n->line);
	struct node *a, *c;

	if (!t && addr)
		ERR(n, D_SYM_NOTYPES, "no symbolic type information is available for %s%s: no DWARF type for the symbol",
		    n->name[0] == '`' ? "gnumach" : "", n->name);
	if (!t) {
		sema_pred_first(cc);
		ERR(n, D_IDENT_UNDEF, "failed to resolve %s: Unknown symbol name",
		    n->name);
	}
	a = nd_new(cc, N_INT, n->line);
	a->ival = (int64_t)addr;
	a->is_unsigned_lit = 1;
	c = nd_new(cc, N_OP1, n->line);
	c->op = OP_CAST;
	c->ctype = ty_ptr(cc, t);
	c->l = a;
	n->k = N_OP1;
	n->op = OP_DEREF;
	n->l = c;
	sema_expr(cc, n);
}

static void sema_ident(struct cc *cc, struct node *n)
{
	struct ident *id = id_lookup(&cc->globals, n->name);
	if (!id && strchr(n->name, '`')) {
		sema_ksym(cc, n);
		return;
	}
	if (!id) {
		if (strcmp(n->name, "self") == 0 || strcmp(n->name, "this") == 0)
			ERR(n, D_SYNTAX, "syntax error near \"%s\"", n->name);
		if (sema_pred_first(cc)) {
			sema_ident(cc, n);
			return;
		}
		ERR(n, D_IDENT_UNDEF, "failed to resolve %s: Unknown variable name",
		    n->name);
	}
	n->id = id;
	if (id->has_attr)	/* #pragma D attributes */
		cc_attr_min(cc, id->attr.name, id->attr.data, id->attr.cls);
	switch (id->k) {
	case ID_BVAR:
		n->type = id->type;
		if (id->id == MT_VAR_CURTHREAD) {	/* Stable, Private, Common */
			struct type *ct = ctypes_curthread(cc, n->line);
			cc_attr_min(cc, 6, 1, 5);
			if (ct)
				n->type = ct;
		}
		if (id->id == MT_VAR_ARGS || id->id == MT_VAR_REGS ||
		    id->id == MT_VAR_UREGS)
			ERR(n, D_IDENT_BADREF, "associative array '%s' may not be referenced as scalar", id->name);
		break;
	case ID_VAR:
		if (id->is_assoc == 1)
			ERR(n, D_IDENT_BADREF, "associative array '%s' may not be referenced as scalar", id->name);
		if (!id->type && sema_pred_first(cc)) {
			sema_ident(cc, n);
			return;
		}
		if (!id->type)
			ERR(n, D_VAR_UNDEF, "%s has not yet been declared or assigned", id->name);
		n->type = id->type;
		n->lvalue = n->writable = 1;
		n->is_alloca = id->alloca_taint;
		break;
	case ID_ENUMC:
		n->type = id->type;
		sema_set_const(n, id->val);
		break;
	case ID_INLINE:
		n->type = id->type;
		if (id->init && id->init->is_const)
			sema_set_const(n, id->init->cval);
		if (id->init && id->init->is_string_lit) {
			n->is_string_lit = 1;
			n->strval = id->init->strval;
		}
		break;
	case ID_MACRO:
		n->type = cc->t_int;
		sema_set_const(n, id->val);
		break;
	default:
		ERR(n, D_IDENT_BADREF, "function '%s' may not be referenced as scalar",
		    id->name);
	}
}

static void sema_selfthis(struct cc *cc, struct node *n)
{
	struct ident *id = sema_var(cc, n, 0);
	if ((!id || !id->type) && sema_pred_first(cc)) {
		sema_selfthis(cc, n);
		return;
	}
	if (!id || !id->type)
		ERR(n, D_VAR_UNDEF, "%s%s has not yet been declared or assigned",
		    n->scope == 1 ? "self->" : "this->", n->name);
	if (id->is_assoc == 1)
		ERR(n, D_IDENT_BADREF, "associative array '%s' may not be referenced as scalar", id->name);
	n->id = id;
	n->type = id->type;
	n->lvalue = n->writable = 1;
	n->is_alloca = id->alloca_taint;
}

/*
 * args[i] of a clause whose probes type their arguments: the target's C
 * type, or, for a translated argument, xlate<TRANSLATED>((NATIVE)args[i])
 * (dtrace's SDT providers: the native argument through the translator
 * the D library declares).  n is the cooked built-in args[i] reference.
 */
static void sema_typed_arg(struct cc *cc, struct node *n, int i)
{
	const char *xname = NULL;
	struct type *nat = ctypes_argnative(cc, n, i, &xname);
	struct type *at;
	struct node *raw, *cast;

	if (!nat) {
		if ((at = ctypes_argtype(cc, i, n->line)) != NULL)
			n->type = at;
		return;
	}
	if ((at = ctypes_argtype(cc, i, n->line)) == NULL)
		ERR(n, D_XLATE_NONE, "cannot translate args[%d] from \"%s\" to "
		    "\"%s\": no such type", i, nat->name, xname);
	raw = nd_new(cc, N_OP2, n->line);
	*raw = *n;
	raw->next = NULL;
	cast = nd_new(cc, N_OP1, n->line);
	cast->op = OP_CAST;
	cast->ctype = nat;
	cast->l = raw;
	n->args = NULL;
	n->k = N_XLATE;
	n->op = 0;
	n->scope = 0;
	n->id = NULL;
	n->r = NULL;
	n->type = NULL;
	n->ctype = at;
	n->l = cast;
	sema_expr(cc, n);
}

/*
 * regs[] and uregs[] take an integer constant that is not negative, as
 * dtrace's dt_idcook_regs demands (args[] takes any integer).
 */
static void regs_index(struct cc *cc, struct node *n, const char *name,
		       struct node *a)
{
	if (!a->is_const || !ty_is_integral(a->type))
		ERR(n, D_PROTO_ARG, "%s[ ] argument #1 is incompatible with prototype:\n\tprototype: integer constant\n\t argument: %s",
		    name, sema_tname(a));
	if (a->type->is_signed && a->cval < 0)
		ERR(n, D_REGS_IDX, "index %lld is out of range for array %s",
		    (long long)a->cval, name);
}

/* a[k1, k2]: associative array, args[], or pointer/array indexing */
void sema_index(struct cc *cc, struct node *n, int create, struct node *rhs)
{
	struct node *l = n->l;
	if (l->k == N_AGG) {
		ERR(n, D_AGG_SCALAR, "aggregation @%s may not be used as a scalar", l->name);
	}
	if (l->k == N_IDENT) {
		struct ident *id = id_lookup(&cc->globals, l->name);
		if (id && id->k == ID_INLINE && id->nkeys) {
			/* a parameterized inline: NAME[args] */
			int k = 0;
			for (struct node *a = n->args; a; a = a->next, k++) {
				sema_expr(cc, a);
				if (k < id->nkeys && !ty_compat(id->ktypes[k], a->type))
					ERR(n, D_PROTO_ARG, "%s[ ] argument #%d is incompatible with prototype:\n\tprototype: %s\n\t argument: %s",
					    id->name, k + 1, id->ktypes[k]->name, sema_tname(a));
			}
			if (k != id->nkeys)
				ERR(n, D_PROTO_LEN, "%s[ ] prototype mismatch: %d arg%s passed, %d expected",
				    id->name, k, k == 1 ? "" : "s", id->nkeys);
			n->id = id;
			n->type = id->type;
			n->scope = -3;
			return;
		}
	}
	if (l->k == N_IDENT || l->k == N_VAR) {
		struct ident *id = l->k == N_IDENT ? id_lookup(&cc->globals, l->name) :
						     sema_var(cc, l, 0);
		if (id && id->k == ID_BVAR &&
		    (id->id == MT_VAR_ARGS || id->id == MT_VAR_REGS || id->id == MT_VAR_UREGS)) {
			n->id = id;
			if (!n->args || n->args->next)
				ERR(n, D_PROTO_LEN, "%s[ ] prototype mismatch: 1 arg expected", id->name);
			sema_expr(cc, n->args);
			if (id->id == MT_VAR_ARGS && cc->cl.noargs && n->args->is_const)
				ERR(n, D_ARGS_IDX, "index %lld is out of range for %s args[ ]",
				    (long long)n->args->cval, cc->cl.pdesc0);
			if (id->id != MT_VAR_ARGS)
				regs_index(cc, n, id->name, n->args);
			if (!ty_is_integral(n->args->type))
				ERR(n, D_PROTO_ARG, "%s[ ] argument #1 is incompatible with prototype:\n\tprototype: int\n\t argument: %s",
				    id->name, sema_tname(n->args));
			if (id->id == MT_VAR_ARGS && n->args->is_const)
				ctypes_check_argidx(cc, n, n->args->cval);
			n->type = id->type;
			n->k = N_OP2;
			n->op = OP_INDEX;
			n->scope = -1;		/* built-in array */
			if (id->id == MT_VAR_ARGS && cc->in->ctypes && n->args->is_const)
				sema_typed_arg(cc, n, (int)n->args->cval);
			return;
		}
		if (!id || id->k == ID_VAR) {
			if (l->k == N_VAR && l->scope == 2 && (!id || id->is_assoc != 0))
				ERR(n, D_ARR_LOCAL,
				    "local variables may not be used as associative arrays: %s",
				    l->name);
			if (!id && !create && sema_pred_first(cc)) {
				sema_index(cc, n, create, rhs);
				return;
			}
			if (!id && !create)
				ERR(n, D_IDENT_UNDEF, "failed to resolve %s: Unknown variable name",
				    l->name);
			if (!id) {
				id = sema_var(cc, l, 1);
				id->is_assoc = 1;
			}
			if (id->is_assoc == 0 || (id->is_assoc == -1 && id->type)) {
				if (id->type && (ty_is_ptrlike(id->type) || ty_is_string(id->type)))
					goto ptr_index;
				ERR(n, D_IDENT_BADREF, "scalar '%s' may not be referenced as array", id->name);
			}
			id->is_assoc = 1;
			int nk = 0;
			for (struct node *a = n->args; a; a = a->next) {
				sema_expr(cc, a);
				if (ty_is_void(a->type) || a->is_action)
					ERR(a, D_KEY_TYPE, "%s[ ] key #%d is of type void",
					    id->name, nk + 1);
				nk++;
			}
			if (!id->ktypes) {
				id->ktypes = cc_alloc(cc, (nk ? nk : 1) * sizeof(*id->ktypes));
				int i = 0;
				for (struct node *a = n->args; a; a = a->next)
					id->ktypes[i++] = a->type;
				id->nkeys = nk;
			} else {
				if (nk != id->nkeys)
					ERR(n, D_PROTO_LEN,
					    "%s[ ] prototype mismatch: %d key%s passed, %d expected",
					    id->name, nk, nk == 1 ? "" : "s", id->nkeys);
				int i = 0;
				for (struct node *a = n->args; a; a = a->next, i++)
					if (!ty_compat(id->ktypes[i], a->type))
						ERR(n, D_PROTO_ARG,
						    "%s[ ] key #%d is incompatible with prototype:\n\tprototype: %s\n\t      key: %s",
						    id->name, i + 1, id->ktypes[i]->name, sema_tname(a));
			}
			if (!id->type && rhs)
				sema_assign_type(cc, id, rhs, n->line);
			if (!id->type && sema_pred_first(cc)) {
				sema_index(cc, n, create, rhs);
				return;
			}
			if (!id->type)
				ERR(n, D_VAR_UNDEF, "%s has not yet been declared or assigned",
				    id->name);
			n->id = id;
			n->type = id->type;
			n->lvalue = n->writable = 1;
			n->scope = l->k == N_VAR ? l->scope : 0;
			n->name = l->name;
			n->k = N_VAR;
			n->op = OP_INDEX;
			return;
		}
	}
ptr_index:
	sema_expr(cc, l);
	if (!n->args)
		ERR(n, D_SYNTAX, "syntax error near \"]\"");
	if (n->args->next)
		ERR(n, D_ARR_BADREF, "cannot access %s%s as an associative array",
		    l->name ? "scalar " : "", l->name ? l->name : "operand");
	sema_expr(cc, n->args);
	if (!ty_is_ptrlike(l->type) && !ty_is_string(l->type))
		ERR(n, D_OP_INCOMPAT, "operands have incompatible types: \"%s\" + \"%s\"",
		    sema_tname(l), sema_tname(n->args));
	if (!ty_is_integral(n->args->type))
		ERR(n, D_OP_INCOMPAT, "operands have incompatible types: \"%s\" + \"%s\"",
		    sema_tname(l), sema_tname(n->args));
	if (TY_K(l->type) == T_ARRAY && n->args->is_const &&
	    (uint64_t)n->args->cval >= l->type->canon->nelems)
		ERR(n, D_ARR_BOUNDS, "index outside array bounds: %llu, max is %u",
		    (unsigned long long)n->args->cval, l->type->canon->nelems);
	n->type = ty_is_string(l->type) ? cc->t_char : l->type->canon->base;
	n->lvalue = 1;
	n->writable = l->writable;
	n->scope = -2;		/* memory indexing */
}

static void sema_assign_type(struct cc *cc, struct ident *id,
			     struct node *rhs, int line)
{
	struct type *t = rhs->type;
	if (rhs->is_action || ty_is_void(t))
		cc_error(cc, line, D_OP_VOID, "operator = requires operand of non-void type");
	id->type = t;
}

/*
 * A store into an element or member of a D variable of struct, union or
 * array type copies the whole variable through scratch space (see
 * cg_store_via_scratch): one larger than the clause's scratch space could
 * never be stored into, every store failing "out of scratch space" at run
 * time.  The runtime's scratch is scratchsize plus room for eight strings.
 */
static void check_store_size(struct cc *cc, struct node *n, struct node *l)
{
	struct node *v = l;
	uint64_t lim = cc->scratch_size + MT_SCRATCH_STRROOM(cc->strsize), size;

	while (v) {
		if (v->k == N_MEMBER && v->op == OP_DOT)
			v = v->l;
		else if (v->k == N_OP2 && v->op == OP_INDEX && v->scope == -2 &&
			 v->l->type && TY_K(v->l->type) == T_ARRAY)
			v = v->l;
		else
			break;
	}
	if (v == l || !v || !v->type || ty_is_string(v->type) ||
	    !(v->k == N_VAR || (v->k == N_IDENT && v->id && v->id->k == ID_VAR)) ||
	    !(ty_is_sou(v->type) || TY_K(v->type) == T_ARRAY))
		return;
	size = v->type->canon->size;
	if (size > lim)
		ERR(n, D_DECL_ARRBIG, "%s%s is too big to store into: %llu bytes, "
		    "more than the %llu bytes of scratch space a store copies "
		    "it through (raise -x scratchsize)",
		    v->k == N_VAR && v->scope == 1 ? "self->" :
		    v->k == N_VAR && v->scope == 2 ? "this->" : "",
		    v->name ? v->name : "variable", (unsigned long long)size,
		    (unsigned long long)lim);
}

static void sema_assign(struct cc *cc, struct node *n)
{
	struct node *l = n->l, *r = n->r;
	const char *ops = op_name(n->op);

	if (l->k == N_AGG || (l->k == N_OP2 && l->op == OP_INDEX && l->l->k == N_AGG)) {
		ERR(n, D_AGG_SCALAR, "aggregation assignment is only valid as a statement");
	}
	/*
	 * dtrace cooks the left side of x op= y first, as a reference: a
	 * scalar nothing has declared or assigned yet is an error there
	 * (++/-- are different: they instantiate the variable).
	 */
	if (n->op != OP_ASSIGN && (l->k == N_IDENT || (l->k == N_VAR &&
	    l->op != OP_INDEX))) {
		struct ident *id = l->k == N_IDENT ?
			id_lookup(&cc->globals, l->name) : sema_var(cc, l, 0);
		int undef = id == NULL || (id->k == ID_VAR && !id->type);
		if (undef && sema_pred_first(cc)) {
			sema_assign(cc, n);
			return;
		}
		if (undef)
			ERR(n, D_VAR_UNDEF, "%s%s has not yet been declared or assigned",
			    l->k == N_VAR && l->scope == 1 ? "self->" :
			    l->k == N_VAR && l->scope == 2 ? "this->" : "", l->name);
	}
	sema_expr(cc, r);
	if (r->is_action)
		ERR(n, D_OP_ACT, "operator %s operands cannot be actions", ops);
	if (r->is_agg)
		ERR(n, D_AGG_SCALAR, "aggregation may not be used as a scalar");
	int create = 1;		/* x op= y also instantiates x (as int64_t) */
	if (l->k == N_IDENT) {
		struct ident *id = id_lookup(&cc->globals, l->name);
		if (!id && strchr(l->name, '`')) {	/* a kernel global */
			sema_expr(cc, l);
			ERR(n, D_OP_WRITE, "operator %s can only be applied to a writable variable", ops);
		}
		if (id && id->k != ID_VAR) {
			if (id->k == ID_BVAR || id->k == ID_ENUMC || id->k == ID_INLINE ||
			    id->k == ID_MACRO) {
				sema_expr(cc, l);
				ERR(n, D_OP_WRITE, "operator %s can only be applied to a writable variable", ops);
			}
			ERR(n, D_OP_LVAL, "operator %s requires modifiable lvalue as an operand", ops);
		}
		l->scope = 0;
		l->k = N_VAR;
	}
	if (l->k == N_VAR && l->op != OP_INDEX) {
		struct ident *id = sema_var(cc, l, create);
		if (id->is_assoc == 1)
			ERR(n, D_IDENT_BADREF, "associative array '%s' may not be referenced as scalar", id->name);
		id->is_assoc = 0;
		if (!id->type) {
			if (n->op != OP_ASSIGN)
				id->type = cc->t_int64;
			else
				sema_assign_type(cc, id, r, n->line);
		}
		l->id = id;
		l->type = id->type;
		l->lvalue = l->writable = 1;
	} else if (l->k == N_OP2 && l->op == OP_INDEX) {
		sema_index(cc, l, 1, n->op == OP_ASSIGN ? r : NULL);
		if (l->k == N_OP2 && l->scope == -1)
			ERR(n, D_OP_WRITE, "operator %s can only be applied to a writable variable", ops);
		if (l->id && !l->id->type)
			l->id->type = cc->t_int64;
	} else {
		sema_expr(cc, l);
	}
	if (!l->lvalue)
		ERR(n, D_OP_LVAL, "operator %s requires modifiable lvalue as an operand", ops);
	if (!l->writable)
		ERR(n, D_OP_WRITE, "operator %s can only be applied to a writable variable", ops);
	check_store_size(cc, n, l);
	if ((l->k == N_VAR || l->k == N_IDENT) && r->nonassign)
		ERR(n, D_ALLOCA_INCOMPAT, "ternary conditional with alloca and non-alloca branches cannot be assigned to a variable");
	if (l->id && l->id->k == ID_VAR && r->is_alloca)
		l->id->alloca_taint = 1;
	switch (n->op) {
	case OP_ASSIGN:
		if (TY_K(l->type) == T_ARRAY && !ty_is_string(l->type))
			ERR(n, D_OP_ARRFUN, "operator %s may not be applied to operand of type \"%s\"",
			    ops, sema_tname(l));
		if (!ty_compat(l->type, r->type) &&
		    !((ty_is_ptrlike(l->type) || ty_is_sou(l->type) || ty_is_string(l->type)) &&
		      r->is_const && r->cval == 0 && ty_is_integral(r->type)) &&
		    !(ty_is_string(l->type) && ty_is_string(r->type)))
			ERR(n, D_OP_INCOMPAT, "operands have incompatible types: \"%s\" %s \"%s\"",
			    sema_tname(l), ops, sema_tname(r));
		break;
	case OP_ADD_EQ: case OP_SUB_EQ:
		if (ty_is_string(l->type) || ty_is_string(r->type))
			ERR(n, D_OP_INCOMPAT, "operands have incompatible types: \"%s\" %s \"%s\"",
			    sema_tname(l), ops, sema_tname(r));
		if (!ty_is_integral(l->type) || !ty_is_integral(r->type)) {
			if (!ty_is_ptrlike(l->type))
				ERR(n, D_OP_VFPTR, "operator %s requires left-hand scalar operand of known size", ops);
			if (!ty_is_integral(r->type))
				ERR(n, D_OP_INCOMPAT, "operands have incompatible types: \"%s\" %s \"%s\"",
				    sema_tname(l), ops, sema_tname(r));
		}
		break;
	case OP_MUL_EQ: case OP_DIV_EQ:
		if (!ty_is_arith(l->type) || !ty_is_arith(r->type))
			ERR(n, D_OP_ARITH, "operator %s requires operands of arithmetic type", ops);
		break;
	default:
		if (!ty_is_integral(l->type) || !ty_is_integral(r->type))
			ERR(n, D_OP_INT, "operator %s requires operands of integral type", ops);
	}
	n->type = l->type;
}

static struct xlator *find_xlator(struct cc *cc, struct type *out, struct type *in)
{
	for (struct xlator *x = cc->xlators; x; x = x->next)
		if (ty_same(x->out, out) &&
		    (ty_compat(x->in, in) || ty_same(x->in, in)))
			return x;
	/* translating from a pointer to T using a translator for T */
	return NULL;
}

static void sema_expr1(struct cc *cc, struct node *n);

void sema_expr(struct cc *cc, struct node *n)
{
	if (n->type)
		return;		/* already cooked */
	cc_nest_in(cc);
	sema_expr1(cc, n);
	cc_nest_out(cc);
}

static void sema_expr1(struct cc *cc, struct node *n)
{
	switch (n->k) {
	case N_INT:
		int_literal(cc, n);
		break;
	case N_STRING:
		n->type = cc->t_string;
		n->is_string_lit = 1;
		n->strval = n->name;
		break;
	case N_IDENT:
		sema_ident(cc, n);
		break;
	case N_VAR:
		if (n->op == OP_INDEX)
			break;		/* already cooked assoc reference */
		sema_selfthis(cc, n);
		break;
	case N_AGG:
		n->is_agg = 1;
		n->type = cc->t_void;
		break;
	case N_FUNC:
		sema_func(cc, n);
		break;
	case N_OP1:
		sema_op1(cc, n);
		break;
	case N_OP2:
		sema_op2(cc, n);
		break;
	case N_OP3:
		sema_op3(cc, n);
		break;
	case N_MEMBER:
		sema_member(cc, n);
		break;
	case N_ASSIGN:
		sema_assign(cc, n);
		break;
	case N_OFFSETOF: {
		struct type *t = n->ctype;
		if (ty_is_sou(t) && !t->canon->complete)
			ctypes_complete(cc, t, n->line);
		if (!ty_is_sou(t) || !t->canon->complete)
			ERR(n, D_OFFSETOF_TYPE, "offsetof operand must be a struct or union type");
		struct member *m = ty_member(cc, t, n->name);
		if (!m)
			ERR(n, D_UNKNOWN, "failed to determine offset of %s: Member name not found",
			    n->name);
		if (m->bits)
			ERR(n, D_OFFSETOF_BITFIELD, "cannot take offset of a bit-field: %s",
			    n->name);
		n->type = cc->t_size;
		sema_set_const(n, m->off);
		break;
	}
	case N_XLATE: {
		sema_expr(cc, n->l);
		struct type *out = n->ctype, *base = out;
		if (TY_K(out) == T_PTR)
			base = out->canon->base;
		struct xlator *x = find_xlator(cc, base, n->l->type);
		if (!x)
			ERR(n, D_XLATE_NONE, "cannot translate from \"%s\" to \"%s\"",
			    sema_tname(n->l), out->name);
		n->xl = x;
		n->type = out;
		break;
	}
	case N_TYPE:
		n->type = n->ctype;
		break;
	default:
		ERR(n, D_UNKNOWN, "internal error: bad node %d", n->k);
	}
	/* *args[0] of a kernel struct pointer: the struct the target only
	   forward-declared (a pointee) is completed from its declarations,
	   so that print(), sizeof and aggregation keys see its members */
	if (n->type && (ty_is_sou(n->type) || TY_K(n->type) == T_ENUM) &&
	    !n->type->canon->complete)
		ctypes_complete(cc, n->type, n->line);
}
