/*
 * Clauses: probe descriptions, predicate and statements to the program's
 * clause, action, record and aggregation tables, with dtrace's checks on
 * actions (prototypes, speculation ordering, aggregation signatures).
 *
 * Record layout: each rec is placed at the next offset aligned to 8 in
 * the clause record, in statement order.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "cc.h"

#define ERR(n, tag, ...) cc_error(cc, (n)->line, tag, __VA_ARGS__)

static char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");
	if (!p)
		abort();
	return p;
}

static const char *tname(struct node *n)
{
	if (n->is_agg)
		return "aggregation";
	return n->type ? n->type->name : "?";
}

static uint32_t new_action(struct cc *cc, int kind, int line)
{
	struct mt_action a = {0};
	struct mt_action_info ai = {0};
	a.kind = (uint16_t)kind;
	a.rec0 = cc->recs.n;
	ai.line = line;
	VEC_PUSH(cc, cc->actions, a);
	VEC_PUSH(cc, cc->action_info, ai);
	return cc->actions.n - 1;
}

static void rec_info_of(struct cc *cc, struct type *t, struct mt_rec_info *ri)
{
	ri->ctype = xstrdup(t->name);
	ri->size = 8;
	if (ty_is_string(t)) {
		ri->kind = MT_TI_STR;
		ri->size = cc->strsize;
	} else if (ty_is_sou(t) || TY_K(t) == T_ARRAY) {
		ri->kind = MT_TI_MEM;
		ri->size = t->canon->size;
	} else if (TY_K(t) == T_PTR) {
		ri->kind = MT_TI_UINT;
		ri->is_ptr = 1;
	} else {
		ri->kind = t->canon->is_signed || TY_K(t) == T_ENUM ? MT_TI_INT : MT_TI_UINT;
		ri->size = t->canon->size ? t->canon->size : 8;
	}
}

/* Add a rec computing expression e to the current action. */
static void add_rec(struct cc *cc, struct node *e, uint16_t flags, int tikind)
{
	struct mt_rec r = {0};
	struct mt_rec_info ri = {0};
	uint32_t rtype, rsize;
	r.difo = cg_difo(cc, e, &rtype, &rsize);
	rec_info_of(cc, e->type, &ri);
	if (tikind)
		ri.kind = (uint16_t)tikind;
	r.flags = flags | (cg_temps_dead(e) ? MT_RF_TEMPS : 0);
	if (rtype == MT_RT_STRING) {
		r.kind = MT_REC_STR;
		r.size = cc->strsize;
	} else if (rtype == MT_RT_REF) {
		r.kind = MT_REC_MEM;
		r.size = rsize;
	} else {
		r.kind = MT_REC_INT;
		r.size = ri.kind == MT_TI_INT || ri.kind == MT_TI_UINT ? ri.size : 8;
		if (r.size != 1 && r.size != 2 && r.size != 4)
			r.size = 8;
		if (ri.kind == MT_TI_INT)
			r.flags |= MT_RF_SIGNED;
	}
	ri.size = r.size;
	cc->cl.recoff = (cc->cl.recoff + 7) & ~7u;
	r.offset = cc->cl.recoff;
	cc->cl.recoff += r.size;
	VEC_PUSH(cc, cc->recs, r);
	VEC_PUSH(cc, cc->rec_info, ri);
	cc->actions.v[cc->actions.n - 1].nrecs++;
}

static void add_rec_sized(struct cc *cc, struct node *e, int kind, uint32_t size,
			  int tikind)
{
	struct mt_rec r = {0};
	struct mt_rec_info ri = {0};
	r.difo = e ? cg_difo(cc, e, NULL, NULL) : 0;
	r.kind = (uint16_t)kind;
	r.size = size;
	ri.kind = (uint16_t)tikind;
	ri.size = size;
	ri.ctype = xstrdup(e && e->type ? e->type->name : "");
	cc->cl.recoff = (cc->cl.recoff + 7) & ~7u;
	r.offset = cc->cl.recoff;
	cc->cl.recoff += size;
	VEC_PUSH(cc, cc->recs, r);
	VEC_PUSH(cc, cc->rec_info, ri);
	cc->actions.v[cc->actions.n - 1].nrecs++;
}

static void upid_rec(struct cc *cc, int tikind)
{
	if (ti_is_user(tikind))
		cc->recs.v[cc->recs.n - 1].flags |= MT_RF_UPID;
}

static int nargs_of(struct node *n)
{
	int k = 0;
	for (struct node *a = n->args; a; a = a->next)
		k++;
	return k;
}

static void check_len(struct cc *cc, struct node *n)
{
	struct ident *id = n->id;
	int k = nargs_of(n);
	if (k < id->minargs || (id->maxargs >= 0 && k > id->maxargs)) {
		if (id->maxargs == id->minargs)
			ERR(n, D_PROTO_LEN, "%s( ) prototype mismatch: %d arg%s passed, %d expected",
			    id->name, k, k == 1 ? "" : "s", id->minargs);
		else if (k < id->minargs)
			ERR(n, D_PROTO_LEN, "%s( ) prototype mismatch: %d arg%s passed, at least %d expected",
			    id->name, k, k == 1 ? "" : "s", id->minargs);
		else
			ERR(n, D_PROTO_LEN, "%s( ) prototype mismatch: %d arg%s passed, at most %d expected",
			    id->name, k, k == 1 ? "" : "s", id->maxargs);
	}
}

/* The aggregation an action names; tag: the action's "undefined" error. */
static struct ident *agg_of(struct cc *cc, struct node *a, enum mt_dtag tag)
{
	struct ident *id = id_lookup(&cc->aggs, a->name);
	if (!id)
		ERR(a, tag, "undefined aggregation: @%s", a->name);
	return id;
}

/*
 * ---- speculation ordering: dtrace's clause rules (dt_cg_clsflags) ----
 * An aggregation and every other recording action (destructive ones and
 * exit( ) too) count as data.  discard( ) records nothing and blocks
 * nothing; commit( ) blocks what records after it.
 */
enum { K_DATA = 1, K_SPEC, K_COMMIT, K_DISCARD, K_AGG, K_EXIT, K_DESTR };

static void spec_check(struct cc *cc, struct node *n, int k)
{
	struct clause_state *c = &cc->cl;
	int data = c->has_data || c->has_agg;

	if (k == K_DISCARD)
		return;
	if (k == K_COMMIT) {
		if (data)
			ERR(n, D_COMM_DREC, "commit( ) may not follow data-recording action(s)");
		c->has_commit = 1;
	} else if (k == K_SPEC) {
		if (c->speculative)
			ERR(n, D_SPEC_SPEC, "speculate( ) may not follow speculate( )");
		if (c->has_commit)
			ERR(n, D_SPEC_COMM, "speculate( ) may not follow commit( )");
		if (data)
			ERR(n, D_SPEC_DREC, "speculate( ) may not follow data-recording action(s)");
		c->speculative = 1;
	} else if (k == K_AGG) {
		if (c->has_commit)
			ERR(n, D_AGG_COMM, "aggregating actions may not follow commit( )");
		if (c->speculative)
			ERR(n, D_AGG_SPEC, "aggregating actions may not follow speculate( )");
		c->has_agg = 1;
	} else {
		if (c->speculative && k == K_DESTR)
			ERR(n, D_ACT_SPEC, "destructive actions may not follow speculate( )");
		if (c->speculative && k == K_EXIT)
			ERR(n, D_EXIT_SPEC, "exit( ) may not follow speculate( )");
		if (c->has_commit)
			ERR(n, D_DREC_COMM, "data-recording actions may not follow commit( )");
		c->has_data = 1;
	}
}

static int64_t const_arg(struct cc *cc, struct node *a, enum mt_dtag tag,
			 const char *msg)
{
	sema_expr(cc, a);
	if (!a->is_const || !ty_is_integral(a->type))
		ERR(a, tag, "%s", msg);
	return a->cval;
}

/* print(): the type description of program.h's mt_rec_info.tdesc */
static void tdesc_put(FILE *f, struct type *t)
{
	struct type *c = t->canon;
	switch (c->kind) {
	case T_INT:
		fprintf(f, "i%u%c\"%s\"", c->size, c->is_signed ? 's' : 'u', t->name);
		break;
	case T_ENUM:
		fprintf(f, "e%u\"%s\"{", c->size ? c->size : 4, t->name);
		for (struct enumc *e = c->enums; e; e = e->next)
			fprintf(f, "%s=%lld,", e->name, (long long)e->val);
		fputc('}', f);
		break;
	case T_PTR:
		fprintf(f, "p\"%s\"", t->name);
		break;
	case T_FLOAT:
		fprintf(f, "f%u\"%s\"", c->size, t->name);
		break;
	case T_ARRAY:
		fprintf(f, "a%u\"%s\"", c->nelems, t->name);
		tdesc_put(f, c->base);
		break;
	case T_STRUCT:
	case T_UNION: {
		/* anonymous ones print as "(struct)" / "(union)" */
		const char *nm = t->name;
		if (c->tag && c->tag[0] == '<')
			nm = c->kind == T_STRUCT ? "struct" : "union";
		fprintf(f, "%c%u\"%s\"{", c->kind == T_STRUCT ? 's' : 'u', c->size, nm);
		for (struct member *m = c->members; m; m = m->next) {
			fprintf(f, ".%s@%u", m->name ? m->name : "", m->off);
			if (m->bits)
				fprintf(f, ":%u:%u", m->bitoff, m->bits);
			tdesc_put(f, m->type);
			fputc(';', f);
		}
		fputc('}', f);
		break;
	}
	case T_STRING:
		fprintf(f, "a%u\"string\"i1s\"char\"", t->size);
		break;
	default:
		fprintf(f, "i8s\"%s\"", t->name);
	}
}

static char *tdesc_of(struct type *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	tdesc_put(f, t);
	fclose(f);
	return buf;
}

static void do_trace(struct cc *cc, struct node *n, int act_kind)
{
	struct node *a = n->args;
	sema_expr(cc, a);
	if (a->is_agg)
		ERR(n, D_TRACE_DYN, "%s( ) may not be applied to a dynamic expression",
		    n->id->name);
	if (a->is_action || ty_is_void(a->type))
		ERR(n, D_TRACE_VOID, "%s( ) may not be applied to a void expression",
		    n->id->name);
	if (a->k == N_XLATE && TY_K(a->type) != T_PTR)
		ERR(n, D_TRACE_DYN, "%s( ) may not be applied to a dynamic expression",
		    n->id->name);
	if (act_kind == MT_ACT_PRINT && TY_K(a->type) == T_PTR &&
	    a->type->canon->base->canon->size == 0)
		ERR(a, D_PRINT_SIZE, "print( ) argument #1 reference has type '%s' with size 0; cannot print( ) it.",
		    a->type->canon->base->name);
	spec_check(cc, n, K_DATA);
	new_action(cc, act_kind, n->line);
	add_rec(cc, a, 0, 0);
	if (act_kind != MT_ACT_PRINT)
		return;
	/* print(): the value's type; a pointer to a struct/union also
	   records the object pointed to, as a second (MEM) rec */
	cc->rec_info.v[cc->rec_info.n - 1].tdesc = tdesc_of(a->type);
	struct type *b = TY_K(a->type) == T_PTR ? a->type->canon->base : NULL;
	if (b && (ty_is_sou(b) || TY_K(b) == T_ARRAY) && b->canon->size) {
		add_rec_sized(cc, a, MT_REC_MEM, b->canon->size, MT_TI_MEM);
		cc->rec_info.v[cc->rec_info.n - 1].tdesc = tdesc_of(b);
	}
}


static void do_printf(struct cc *cc, struct node *n, int kind)
{
	struct node *f = n->args;
	const char *name = n->id->name;
	if (!f)
		ERR(n, D_PROTO_LEN, "%s( ) prototype mismatch: 0 args passed, at least 1 expected", name);
	sema_expr(cc, f);
	/*
	 * Only printf() has a typed format parameter ("string"); system()
	 * and freopen() take any first argument and then need a constant.
	 */
	if (kind == MT_ACT_PRINTF && !f->is_string_lit &&
	    (ty_is_string(f->type) || ty_is_charptr(f->type) ||
	     (TY_K(f->type) == T_PTR && ty_is_void(f->type->canon->base)) ||
	     (f->is_const && f->cval == 0)) == 0)
		ERR(f, D_PROTO_ARG, "%s( ) argument #1 is incompatible with prototype:\n\tprototype: string\n\t argument: %s",
		    name, tname(f));
	if (!f->is_string_lit)
		ERR(f, D_PRINTF_ARG_FMT, "%s( ) argument #1 is incompatible with prototype:\n\tprototype: string constant\n\t argument: %s",
		    name, tname(f));
	for (struct node *a = f->next; a; a = a->next) {
		uint32_t ksz;
		int tk;
		if (a->k == N_AGG) {
			a->is_agg = 1;
			a->type = cc->t_void;
		} else if ((tk = key_special(cc, a, &ksz)) != 0) {
			a->cval = tk;		/* stack()/sym()... recorded as such */
			a->slen = ksz;
		} else {
			sema_expr(cc, a);
		}
	}
	if (kind == MT_ACT_PRINTF && !*f->strval)
		ERR(n, D_PRINTF_FMT_EMPTY, "%s( ) format string is empty", name);
	if (kind == MT_ACT_FREOPEN && strcmp(f->strval, ".") == 0)
		ERR(n, D_FREOPEN_INVALID, "freopen( ) argument #1 cannot be \".\"");
	printf_validate(cc, f->strval, f->next, 2, name, n->line, 0);
	spec_check(cc, n, kind == MT_ACT_PRINTF ? K_DATA : K_DESTR);
	uint32_t ai = new_action(cc, kind, n->line);
	cc->action_info.v[ai].fmt = xstrdup(f->strval);
	for (struct node *a = f->next; a; a = a->next) {
		if (a->k == N_FUNC && a->id && a->id->k == ID_ACTF) {
			int stk = a->cval == MT_TI_STACK || a->cval == MT_TI_USTACK;
			add_rec_sized(cc, stk ? NULL : a->args, stk ? MT_REC_STACK : MT_REC_INT,
				      (uint32_t)a->slen, (int)a->cval);
			upid_rec(cc, (int)a->cval);
			continue;
		}
		if (a->is_uaddr && (ty_is_integral(a->type) || ty_is_ptrlike(a->type))) {
			add_rec_sized(cc, a, MT_REC_INT, 16, MT_TI_UADDR);
			upid_rec(cc, MT_TI_UADDR);
			continue;
		}
		add_rec(cc, a, 0, 0);
	}
}

static void do_printa(struct cc *cc, struct node *n)
{
	struct node *a = n->args;
	const char *fmt = NULL;
	int argno = 1;
	if (!a)
		ERR(n, D_PRINTA_PROTO, "printa( ) prototype mismatch: 0 args passed, at least 1 expected");
	if (a->k == N_STRING || (a->k != N_AGG)) {
		sema_expr(cc, a);
		if (!a->is_string_lit)
			ERR(a, D_PRINTA_AGGARG, "printa( ) argument #1 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: %s",
			    tname(a));
		fmt = a->strval;
		a = a->next;
		argno++;
		if (!a)
			ERR(n, D_PRINTA_PROTO, "printa( ) prototype mismatch: 1 args passed, 2 expected");
	}
	uint32_t naggs = 0, *ids = cc_alloc(cc, 64 * sizeof(uint32_t));
	struct ident *first = NULL;
	for (; a; a = a->next, argno++) {
		if (a->k != N_AGG) {
			sema_expr(cc, a);
			ERR(a, D_PRINTA_AGGARG, "printa( ) argument #%d is incompatible with prototype:\n\tprototype: aggregation\n\t argument: %s",
			    argno, tname(a));
		}
		struct ident *id = agg_of(cc, a, D_PRINTA_AGGBAD);
		if (first && id->nkeys == first->nkeys) {
			for (int i = 0; i < id->nkeys; i++)
				if (!ty_compat(id->ktypes[i], first->ktypes[i]) ||
				    ty_is_string(id->ktypes[i]) != ty_is_string(first->ktypes[i]))
					ERR(a, D_PRINTA_AGGPROTO, "printa( ): @%s[ ] key #%d is incompatible with @%s:\n%9s key #%d: %s\n%9s key #%d: %s",
					    id->name, i + 1, first->name,
					    first->name, i + 1, first->ktypes[i]->name,
					    id->name, i + 1, id->ktypes[i]->name);
		} else if (first) {
			ERR(a, D_PRINTA_AGGKEY, "printa( ): @%s and @%s do not have matching key signatures: @%s has %d key%s, @%s has %d key%s",
			    first->name, id->name, first->name, first->nkeys,
			    first->nkeys == 1 ? "" : "s", id->name, id->nkeys,
			    id->nkeys == 1 ? "" : "s");
		}
		if (!first)
			first = id;
		if (naggs < 64)
			ids[naggs++] = (uint32_t)id->aggid;
	}
	if (fmt) {
		/* conversions take the first aggregation's keys, %@ its value */
		struct node *kl = NULL, **kt = &kl;
		for (int i = 0; i < first->nkeys; i++) {
			struct node *k = nd_new(cc, N_TYPE, n->line);
			k->type = first->ktypes[i];
			*kt = k;
			kt = &k->next;
		}
		printf_validate(cc, fmt, kl, 2, "printa", n->line, 1);
	}
	spec_check(cc, n, K_DATA);
	uint32_t ai = new_action(cc, MT_ACT_PRINTA, n->line);
	cc->action_info.v[ai].fmt = fmt ? xstrdup(fmt) : NULL;
	cc->action_info.v[ai].aggids = malloc((naggs ? naggs : 1) * sizeof(uint32_t));
	if (!cc->action_info.v[ai].aggids)
		abort();
	memcpy(cc->action_info.v[ai].aggids, ids, naggs * sizeof(uint32_t));
	cc->action_info.v[ai].naggids = naggs;
}

static void agg_action(struct cc *cc, struct node *n, int kind, int needs_arg)
{
	struct node *a = n->args;
	if (!a || a->k != N_AGG) {
		if (a && a->k != N_FUNC)
			sema_expr(cc, a);
		else if (a)
			a->type = cc->t_void;
		ERR(n, kind == MT_ACT_TRUNC ? D_TRUNC_AGGARG :
		       kind == MT_ACT_CLEAR ? D_CLEAR_AGGARG :
		       kind == MT_ACT_NORMALIZE ? D_NORMALIZE_AGGARG : D_NORMALIZE_AGGARG,
		    "%s( ) argument #1 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: %s",
		    n->id->name, a ? tname(a) : "void");
	}
	struct ident *id = agg_of(cc, a, kind == MT_ACT_TRUNC ? D_TRUNC_AGGBAD :
				      kind == MT_ACT_CLEAR ? D_CLEAR_AGGBAD :
				      D_NORMALIZE_AGGBAD);
	uint32_t ai = new_action(cc, kind, n->line);
	cc->action_info.v[ai].aggids = malloc(sizeof(uint32_t));
	cc->action_info.v[ai].aggids[0] = (uint32_t)id->aggid;
	cc->action_info.v[ai].naggids = 1;
	cc->actions.v[ai].arg = (uint64_t)id->aggid;
	if (a->next) {
		sema_expr(cc, a->next);
		if (!ty_is_integral(a->next->type))
			ERR(n, D_PROTO_ARG, "%s( ) argument #2 is incompatible with prototype:\n\tprototype: uint64_t\n\t argument: %s",
			    n->id->name, tname(a->next));
		add_rec(cc, a->next, 0, 0);
	}
	(void)needs_arg;
}

/* exit(), speculate(), commit(), discard(), chill(), raise(): one int. */
static void do_intarg(struct cc *cc, struct node *n)
{
	struct ident *id = n->id;
	struct node *a = n->args;
	sema_expr(cc, a);
	if (!ty_is_integral(a->type) || a->is_action)
		ERR(a, D_PROTO_ARG, "%s( ) argument #1 is incompatible with prototype:\n\tprototype: int\n\t argument: %s",
		    id->name, a->is_action ? "void" : tname(a));
	int k = id->id == MT_ACT_EXIT ? K_EXIT : id->id == MT_ACT_SPECULATE ? K_SPEC :
		id->id == MT_ACT_COMMIT ? K_COMMIT : id->id == MT_ACT_DISCARD ? K_DISCARD :
		K_DESTR;
	spec_check(cc, n, k);
	new_action(cc, id->id, n->line);
	add_rec(cc, a, 0, 0);
}

/* stack([frames]), ustack([frames[, strsize]]) */
static void do_stack(struct cc *cc, struct node *n)
{
	struct ident *id = n->id;
	int64_t frames = id->id == MT_ACT_STACK ? 20 : 100;
	struct node *a = n->args;
	for (struct node *x = a; x; x = x->next)
		if (!ty_is_integral(x->type))
			ERR(x, D_PROTO_ARG, "%s( ) argument #%d is incompatible with prototype:\n\tprototype: uint32_t\n\t argument: %s",
			    id->name, x == a ? 1 : 2, tname(x));
	if (a) {
		enum mt_dtag tag = id->id == MT_ACT_STACK ? D_STACK_SIZE : D_USTACK_FRAMES;
		frames = const_arg(cc, a, tag, cc_printf(cc,
			"%s( ) argument #1 must be a non-zero positive integer constant",
			id->name));
		if (frames <= 0)
			ERR(a, tag, "%s( ) argument #1 must be a non-zero positive integer constant",
			    id->name);
	}
	if (a && a->next &&
	    const_arg(cc, a->next, D_USTACK_STRSIZE,
		      "ustack( ) argument #2 must be a non-zero positive integer constant") <= 0)
		ERR(a->next, D_USTACK_STRSIZE,
		    "ustack( ) argument #2 must be a non-zero positive integer constant");
	spec_check(cc, n, K_DATA);
	uint32_t ai = new_action(cc, id->id, n->line);
	cc->actions.v[ai].arg = (uint64_t)frames;
	add_rec_sized(cc, NULL, MT_REC_STACK,
		      (uint32_t)(frames + (id->id == MT_ACT_USTACK)) * 8,
		      id->id == MT_ACT_STACK ? MT_TI_STACK : MT_TI_USTACK);
	upid_rec(cc, id->id == MT_ACT_STACK ? MT_TI_STACK : MT_TI_USTACK);
}

/* tracemem(addr, size[, dynsize]) */
static void do_tracemem(struct cc *cc, struct node *n)
{
	struct node *a = n->args, *s = a->next;
	sema_expr(cc, a);
	if (!ty_is_ptrlike(a->type) && !ty_is_integral(a->type))
		ERR(a, D_TRACEMEM_ADDR, "tracemem( ) argument #1 is incompatible with prototype:\n\tprototype: pointer or integer\n\t argument: %s",
		    tname(a));
	int64_t sz = const_arg(cc, s, D_TRACEMEM_SIZE,
		"tracemem( ) argument #2 must be a non-zero positive integral constant expression");
	if (sz <= 0)
		ERR(s, D_TRACEMEM_SIZE, "tracemem( ) argument #2 must be a non-zero positive integral constant expression");
	spec_check(cc, n, K_DATA);
	uint32_t ai = new_action(cc, MT_ACT_TRACEMEM, n->line);
	cc->actions.v[ai].arg = (uint64_t)sz;
	add_rec_sized(cc, a, MT_REC_MEM, (uint32_t)sz, MT_TI_MEM);
	if (s->next) {
		sema_expr(cc, s->next);
		if (!ty_is_integral(s->next->type))
			ERR(s->next, D_TRACEMEM_DYNSIZE, "tracemem( ) argument #3 must be an integral expression");
		add_rec_sized(cc, s->next, MT_REC_INT, 8, MT_TI_INT);
	}
}

/*
 * setopt(name[, value]): string constants go in the action info; a name
 * or value computed at run time is recorded as a string rec (the name's
 * first) for the consumer to apply.
 */
static void do_setopt(struct cc *cc, struct node *n)
{
	struct node *a = n->args;
	sema_expr(cc, a);
	if (!a->is_string_lit && !ty_is_string(a->type))
		ERR(a, D_PROTO_ARG, "setopt( ) argument #1 is incompatible with prototype:\n\tprototype: char *\n\t argument: %s",
		    tname(a));
	if (a->next) {
		sema_expr(cc, a->next);
		if (!a->next->is_string_lit && !ty_is_string(a->next->type))
			ERR(a->next, D_PROTO_ARG, "setopt( ) argument #2 is incompatible with prototype:\n\tprototype: char *\n\t argument: %s",
			    tname(a->next));
	}
	uint32_t ai = new_action(cc, MT_ACT_SETOPT, n->line);
	if (a->is_string_lit)
		cc->action_info.v[ai].opt_name = xstrdup(a->strval);
	else
		add_rec(cc, a, 0, 0);
	if (a->next && a->next->is_string_lit)
		cc->action_info.v[ai].opt_value = xstrdup(a->next->strval);
	else if (a->next)
		add_rec(cc, a->next, 0, 0);
}

/* sym(), mod(), usym(), umod(), uaddr(): one address, printed by name */
static void do_symaddr(struct cc *cc, struct node *n)
{
	struct ident *id = n->id;
	struct node *a = n->args;
	sema_expr(cc, a);
	if (!ty_is_integral(a->type) && !ty_is_ptrlike(a->type))
		ERR(a, D_PROTO_ARG, "%s( ) argument #1 is incompatible with prototype:\n\tprototype: uintptr_t\n\t argument: %s",
		    id->name, tname(a));
	spec_check(cc, n, K_DATA);
	new_action(cc, id->id, n->line);
	int tk = id->id == MT_ACT_SYM ? MT_TI_SYM : id->id == MT_ACT_MOD ? MT_TI_MOD :
		 id->id == MT_ACT_USYM ? MT_TI_USYM : id->id == MT_ACT_UMOD ? MT_TI_UMOD :
		 MT_TI_UADDR;
	add_rec_sized(cc, a, MT_REC_INT, ti_is_user(tk) ? 16 : 8, tk);
	upid_rec(cc, tk);
}

/* pcap(), printm(): each argument recorded as it is */
static void do_recall(struct cc *cc, struct node *n)
{
	for (struct node *a = n->args; a; a = a->next)
		sema_expr(cc, a);
	spec_check(cc, n, K_DATA);
	new_action(cc, n->id->id, n->line);
	for (struct node *a = n->args; a; a = a->next)
		add_rec(cc, a, 0, 0);
}

/* A call of an action function (trace(), printf(), exit() ...). */
static void do_actf(struct cc *cc, struct node *n)
{
	struct ident *id = n->id;
	check_len(cc, n);
	if (id->id == MT_ACT_PRINT)
		(void)ctypes_print_locals(cc, n);
	if (id->id != MT_ACT_PRINTF && id->id != MT_ACT_PRINTA &&
	    id->id != MT_ACT_SYSTEM && id->id != MT_ACT_FREOPEN &&
	    id->id != MT_ACT_CLEAR && id->id != MT_ACT_NORMALIZE &&
	    id->id != MT_ACT_DENORMALIZE && id->id != MT_ACT_TRUNC)
		sema_call_args(cc, n, id);
	switch (id->id) {
	case MT_ACT_TRACE:
	case MT_ACT_PRINT:
		do_trace(cc, n, id->id);
		return;
	case MT_ACT_PRINTF:
	case MT_ACT_SYSTEM:
	case MT_ACT_FREOPEN:
		do_printf(cc, n, id->id);
		return;
	case MT_ACT_PRINTA:
		do_printa(cc, n);
		return;
	case MT_ACT_CLEAR: case MT_ACT_DENORMALIZE: case MT_ACT_NORMALIZE:
	case MT_ACT_TRUNC:
		agg_action(cc, n, id->id, 0);
		return;
	case MT_ACT_EXIT: case MT_ACT_SPECULATE: case MT_ACT_COMMIT:
	case MT_ACT_DISCARD: case MT_ACT_CHILL: case MT_ACT_RAISE:
		do_intarg(cc, n);
		return;
	case MT_ACT_STACK: case MT_ACT_USTACK:
		do_stack(cc, n);
		return;
	case MT_ACT_TRACEMEM:
		do_tracemem(cc, n);
		return;
	case MT_ACT_SETOPT:
		do_setopt(cc, n);
		return;
	case MT_ACT_SYM: case MT_ACT_MOD: case MT_ACT_USYM: case MT_ACT_UMOD:
	case MT_ACT_UADDR:
		do_symaddr(cc, n);
		return;
	case MT_ACT_STOP: case MT_ACT_BREAKPOINT: case MT_ACT_PANIC:
	case MT_ACT_FTRUNCATE:
		spec_check(cc, n, K_DESTR);
		new_action(cc, id->id, n->line);
		return;
	case MT_ACT_PCAP: case MT_ACT_PRINTM:
		do_recall(cc, n);
		return;
	}
	ERR(n, D_UNKNOWN, "unsupported action %s( )", id->name);
}

static void if_statement(struct cc *cc, struct node *s);

static void statement(struct cc *cc, struct node *s)
{
	if (s->k == N_IF) {
		if_statement(cc, s);
		return;
	}
	if (s->k == N_AGG) {
		if (!id_lookup(&cc->aggs, s->name))
			ERR(s, D_IDENT_UNDEF, "failed to resolve @%s: Unknown variable name",
			    s->name);
		ERR(s, D_AGG_NULL, "expression has null effect: @%s", s->name);
	}
	if (s->k == N_OP2 && s->op == OP_INDEX && s->l->k == N_AGG)
		ERR(s, D_AGG_NULL, "expression has null effect: @%s", s->l->name);
	if (s->k == N_ASSIGN && s->l->k == N_OP2 && s->l->op == OP_INDEX &&
	    s->l->l->k == N_OP2 && s->l->l->op == OP_INDEX && s->l->l->l->k == N_AGG)
		ERR(s, D_AGG_MDIM, "improper attempt to reference @%s as a multi-dimensional array",
		    s->l->l->l->name);
	if (s->k == N_FUNC && s->l->k == N_IDENT) {
		struct ident *fid = id_lookup(&cc->globals, s->l->name);
		if (fid && fid->k == ID_AGGF)
			ERR(s, D_CG_EXPR, "aggregating function %s( ) may not be called from a D expression (D program context required)",
			    fid->name);
	}
	if (s->k == N_FUNC && s->l->k == N_IDENT) {
		struct ident *id = id_lookup(&cc->globals, s->l->name);
		if (id && id->k == ID_ACTF) {
			s->id = id;
			do_actf(cc, s);
			return;
		}
	}
	if (s->k == N_ASSIGN && (s->l->k == N_AGG ||
	    (s->l->k == N_OP2 && s->l->op == OP_INDEX && s->l->l->k == N_AGG))) {
		spec_check(cc, s, K_AGG);
		agg_assign(cc, s);
		return;
	}
	sema_expr(cc, s);
	if (s->is_agg)
		ERR(s, D_AGG_SCALAR, "aggregation may not be used as a scalar");
	if (s->k == N_FUNC && s->id && s->id->k == ID_SUBR &&
	    (s->id->id == MT_SUBR_COPYOUT || s->id->id == MT_SUBR_COPYOUTSTR))
		spec_check(cc, s, K_DESTR);
	new_action(cc, MT_ACT_DIFEXPR, s->line);
	struct mt_rec r = {0};
	struct mt_rec_info ri = {0};
	r.difo = cg_difo(cc, s, NULL, NULL);
	r.kind = MT_REC_INT;
	r.size = 0;
	r.flags = cg_temps_dead(s) ? MT_RF_TEMPS : 0;
	r.offset = cc->cl.recoff;
	ri.kind = MT_TI_INT;
	ri.ctype = xstrdup("");
	VEC_PUSH(cc, cc->recs, r);
	VEC_PUSH(cc, cc->rec_info, ri);
	cc->actions.v[cc->actions.n - 1].nrecs++;
}

/* Actions that put nothing into the clause's record. */
static int act_nonrec(int k)
{
	return k == MT_ACT_DIFEXPR || k == MT_ACT_AGG || k == MT_ACT_SPECULATE ||
	       k == MT_ACT_COMMIT || k == MT_ACT_DISCARD || k == MT_ACT_CLEAR ||
	       k == MT_ACT_TRUNC || k == MT_ACT_NORMALIZE ||
	       k == MT_ACT_DENORMALIZE || k == MT_ACT_SETOPT ||
	       k == MT_ACT_IF || k == MT_ACT_SKIP;
}

/*
 * if (c) A else B  ->  IF(c, skip |A|+1) A... SKIP(|B|) B...
 * The condition is cooked as dtrace's sugar does, (1 && c), so a
 * non-scalar condition gets &&'s D_OP_SCALAR and the value is 0 or 1.
 * Only forward skips: the runtime's loop and the consumer's walk over
 * the clause's actions follow the same arg.  The condition is kept in
 * the record (one byte after the branches' data) only when a branch
 * records data: the consumer must then know which branch ran.
 */
static void if_statement(struct cc *cc, struct node *s)
{
	struct node *one = nd_new(cc, N_INT, s->line);
	struct node *c = nd_new(cc, N_OP2, s->line);
	uint32_t ia, sk = 0, recs = 0;

	one->ival = 1;
	c->op = OP_LAND;
	c->l = one;
	c->r = s->l;
	sema_expr(cc, c);
	ia = new_action(cc, MT_ACT_IF, s->line);
	struct mt_rec r = {0};
	struct mt_rec_info ri = {0};
	r.difo = cg_difo(cc, c, NULL, NULL);
	r.kind = MT_REC_INT;
	ri.kind = MT_TI_INT;
	ri.ctype = xstrdup("");
	uint32_t ir = cc->recs.n;
	VEC_PUSH(cc, cc->recs, r);
	VEC_PUSH(cc, cc->rec_info, ri);
	cc->actions.v[ia].nrecs = 1;
	for (struct node *t = s->r; t; t = t->next)
		statement(cc, t);
	if (s->x)
		sk = new_action(cc, MT_ACT_SKIP, s->line);
	cc->actions.v[ia].arg = cc->actions.n - (ia + 1);
	for (struct node *t = s->x; t; t = t->next)
		statement(cc, t);
	if (s->x)
		cc->actions.v[sk].arg = cc->actions.n - (sk + 1);
	for (uint32_t i = ia + 1; i < cc->actions.n; i++)
		if (!act_nonrec(cc->actions.v[i].kind))
			recs = 1;
	if (recs) {
		cc->recs.v[ir].offset = cc->cl.recoff;
		cc->recs.v[ir].size = 1;
		cc->rec_info.v[ir].size = 1;
		cc->cl.recoff += 1;
	}
}

/*
 * The clause's table entry and its probe descriptions (split by the
 * parser); returns the clause index.
 */
static uint32_t clause_pdescs(struct cc *cc, const struct clause *c)
{
	const struct mt_pdesc *pd = c->pds;
	int npd = c->npd, line = c->line;
	struct mt_clause_info ci = {0};
	ci.line = line;
	ci.src = c->src;
	ci.npdescs = 0;
	ci.pdescs = calloc((size_t)npd, sizeof(*ci.pdescs));
	if (!ci.pdescs)
		abort();
	/* owned by the program from here on, also on the error path */
	uint32_t cidx = cc->clauses.n;
	cc->cur_clause = (int)cidx;
	struct mt_clause cl0 = {0};
	VEC_PUSH(cc, cc->clauses, cl0);
	VEC_PUSH(cc, cc->clause_info, ci);
	for (int i = 0; i < npd; i++) {
		ci.pdescs[i].prov = xstrdup(pd[i].prov);
		ci.pdescs[i].mod = xstrdup(pd[i].mod);
		ci.pdescs[i].func = xstrdup(pd[i].func);
		ci.pdescs[i].name = xstrdup(pd[i].name);
		ci.pdescs[i].line = pd[i].line;
		ci.npdescs = (uint32_t)i + 1;
		cc->clause_info.v[cidx] = ci;
	}
	ctypes_ask_clause(cc);
	return cidx;
}

/* Per-clause compiler state: BEGIN/END clauses have no args[]. */
static void clause_state(struct cc *cc, uint32_t cidx, int line)
{
	const struct mt_clause_info *ci = &cc->clause_info.v[cidx];
	int npd = (int)ci->npdescs;
	memset(&cc->cl, 0, sizeof(cc->cl));
	cc->cl.line = line;
	cc->cl.noargs = 1;
	for (int i = 0; i < npd; i++)
		if (strcmp(ci->pdescs[i].name, "BEGIN") && strcmp(ci->pdescs[i].name, "END"))
			cc->cl.noargs = 0;
	if (cc->cl.noargs)
		cc->cl.pdesc0 = cc_printf(cc, "%s:%s:%s:%s", ci->pdescs[0].prov[0] ? ci->pdescs[0].prov : "dtrace",
					  ci->pdescs[0].mod, ci->pdescs[0].func, ci->pdescs[0].name);
}

/* Cook a statement without generating code (for predicate ordering). */
static void sema_dry(struct cc *cc, struct node *s)
{
	if (s->k == N_IF) {
		sema_expr(cc, s->l);
		for (struct node *t = s->r; t; t = t->next)
			sema_dry(cc, t);
		for (struct node *t = s->x; t; t = t->next)
			sema_dry(cc, t);
		return;
	}
	if (s->k == N_FUNC && s->l->k == N_IDENT) {
		struct ident *id = id_lookup(&cc->globals, s->l->name);
		if (id && id->k == ID_ACTF) {
			if (id->id == MT_ACT_PRINT)
				(void)ctypes_print_locals(cc, s);
			for (struct node *a = s->args; a; a = a->next)
				if (a->k != N_AGG)
					sema_expr(cc, a);
			return;
		}
	}
	if (s->k == N_ASSIGN && (s->l->k == N_AGG ||
	    (s->l->k == N_OP2 && s->l->op == OP_INDEX && s->l->l->k == N_AGG))) {
		if (s->l->k == N_OP2)
			for (struct node *k = s->l->args; k; k = k->next)
				sema_expr(cc, k);
		if (s->r->k == N_FUNC)
			for (struct node *a = s->r->args; a; a = a->next)
				sema_expr(cc, a);
		return;
	}
	sema_expr(cc, s);
}

/*
 * The predicate's DIFO.  The statements are cooked first, as dtrace does;
 * one naming something undefined has the predicate cooked first
 * (sema_pred_first), otherwise it is cooked after them.
 */
static uint32_t clause_pred(struct cc *cc, struct node *pred, struct node *stmts)
{
	cc->cl.pred = pred;
	for (struct node *s = stmts; s; s = s->next)
		sema_dry(cc, s);
	sema_pred_first(cc);
	if (!ty_is_integral(pred->type) && TY_K(pred->type) != T_PTR)
		cc_error(cc, pred->line, D_PRED_SCALAR,
			 "predicate result must be of scalar type");
	return cg_difo(cc, pred, NULL, NULL);
}

/* The clause's flags once its actions are known. */
static void clause_flags(struct cc *cc, struct mt_clause *cl)
{
	cl->nacts = cc->actions.n - cl->act0;
	cl->recsize = (cc->cl.recoff + 7) & ~7u;
	if (cc->cl.speculative)
		cl->flags |= MT_CF_SPECULATIVE;
	/* dtrace's default action records the probe (epid) */
	cl->flags |= MT_CF_NEEDS_RECORD;
	int only_nonrec = cl->nacts > 0;
	for (uint32_t i = cl->act0; i < cc->actions.n; i++) {
		if (!act_nonrec(cc->actions.v[i].kind))
			only_nonrec = 0;
	}
	if (only_nonrec)
		cl->flags &= ~MT_CF_NEEDS_RECORD;
}

void act_clause(struct cc *cc, const struct clause *c)
{
	struct node *pred = c->pred, *stmts = c->body;
	uint32_t cidx = clause_pdescs(cc, c);
	clause_state(cc, cidx, c->line);
	struct mt_clause cl = {0};
	cl.act0 = cc->actions.n;
	if (pred)
		cl.pred_difo = clause_pred(cc, pred, stmts);
	for (struct node *s = stmts; s; s = s->next)
		statement(cc, s);
	clause_flags(cc, &cl);
	cc->clauses.v[cidx] = cl;
}
