/*
 * Aggregations: @name[keys] = func(args).  One aggid per name for the whole
 * program; every use must agree on the function, the key signature and
 * the (l)lquantize parameters, as dtrace checks.
 */
#include <stdlib.h>
#include <string.h>
#include "cc.h"
#include "machtrace/quantize.h"

#define ERR(n, tag, ...) cc_error(cc, (n)->line, tag, __VA_ARGS__)

/* User stacks and addresses start with the pid (abi.h MT_RF_UPID). */
int ti_is_user(int tikind)
{
	return tikind == MT_TI_USTACK || tikind == MT_TI_USYM ||
	       tikind == MT_TI_UMOD || tikind == MT_TI_UADDR;
}

static const char *tname(struct node *n)
{
	return n->is_agg ? "aggregation" : n->type ? n->type->name : "?";
}

static int64_t cint(struct cc *cc, struct node *a, enum mt_dtag tag,
		    const char *msg)
{
	sema_expr(cc, a);
	if (!a->is_const || !ty_is_integral(a->type))
		ERR(a, tag, "%s", msg);
	return a->cval;
}

static void lquant_params(struct cc *cc, struct node *f, int64_t *p)
{
	struct node *v = f->args, *b = v->next, *l = b->next, *st = l->next;
	int64_t base = cint(cc, b, D_LQUANT_BASETYPE,
			    "lquantize( ) argument #1 must be an integer constant");
	if (base < INT32_MIN || base > INT32_MAX)
		ERR(b, D_LQUANT_BASEVAL, "lquantize( ) argument #1 must be a 32-bit quantity");
	int64_t lim = cint(cc, l, D_LQUANT_LIMTYPE,
			   "lquantize( ) argument #2 must be an integer constant");
	if (lim < INT32_MIN || lim > INT32_MAX)
		ERR(l, D_LQUANT_LIMVAL, "lquantize( ) argument #2 must be a 32-bit quantity");
	if (lim < base)
		ERR(f, D_LQUANT_MISMATCH,
		    "lquantize( ) base (argument #1) must be less than limit (argument #2)");
	int64_t step = 1;
	if (st) {
		step = cint(cc, st, D_LQUANT_STEPTYPE,
			    "lquantize( ) argument #3 must be a non-zero positive integer constant");
		if (step <= 0)
			ERR(st, D_LQUANT_STEPTYPE,
			    "lquantize( ) argument #3 must be a non-zero positive integer constant");
		if (step > UINT16_MAX)
			ERR(st, D_LQUANT_STEPVAL, "lquantize( ) argument #3 must be a 16-bit quantity");
	}
	if ((lim - base) / step == 0)
		ERR(f, D_LQUANT_STEPLARGE,
		    "lquantize( ) step (argument #3) too large: must have at least one quantization level");
	if ((lim - base) / step > UINT16_MAX)
		ERR(f, D_LQUANT_STEPSMALL,
		    "lquantize( ) step (argument #3) too small: number of quantization levels must be a 16-bit quantity");
	p[0] = base;
	p[1] = lim;
	p[2] = step;
}

static void llquant_params(struct cc *cc, struct node *f, int64_t *p)
{
	struct node *v = f->args, *fa = v->next, *lo = fa->next, *hi = lo->next,
		    *ns = hi->next;
	int64_t factor = cint(cc, fa, D_LLQUANT_FACTORTYPE,
		"llquantize( ) argument #1 must be an integer constant");
	if (factor < 2 || factor > UINT16_MAX)
		ERR(fa, D_LLQUANT_FACTORVAL,
		    "llquantize( ) argument #1 must be an unsigned 16-bit quantity greater than or equal to 2");
	int64_t lmag = cint(cc, lo, D_LLQUANT_LMAGTYPE,
		"llquantize( ) argument #2 must be an integer constant");
	if (lmag < 0 || lmag > UINT16_MAX)
		ERR(lo, D_LLQUANT_LMAGVAL,
		    "llquantize( ) argument #2 must be an unsigned 16-bit quantity");
	int64_t hmag = cint(cc, hi, D_LLQUANT_HMAGTYPE,
		"llquantize( ) argument #3 must be an integer constant");
	if (hmag < 0 || hmag > UINT16_MAX)
		ERR(hi, D_LLQUANT_HMAGVAL,
		    "llquantize( ) argument #3 must be an unsigned 16-bit quantity");
	if (hmag < lmag)
		ERR(hi, D_LLQUANT_HMAGVAL,
		    "llquantize( ) argument #3 (high magnitude) must be at least argument #2 (low magnitude)");
	{
		/* factor^(hmag+1) must fit in 64 bits */
		unsigned __int128 x = 1;
		for (int64_t i = 0; i <= hmag; i++) {
			x *= (unsigned __int128)factor;
			if (x > (unsigned __int128)UINT64_MAX)
				ERR(hi, D_LLQUANT_HMAGVAL,
				    "llquantize( ) argument #3 (high magnitude) will cause overflow of 64 bits");
		}
	}
	int64_t nsteps = cint(cc, ns, D_LLQUANT_STEPTYPE,
		"llquantize( ) argument #4 must be an integer constant");
	if (nsteps <= 0)
		ERR(ns, D_LLQUANT_STEPTYPE,
		    "llquantize( ) argument #4 must be a non-zero positive integer constant");
	if (nsteps > UINT16_MAX)
		ERR(ns, D_LLQUANT_STEPVAL,
		    "llquantize( ) argument #4 must be an unsigned 16-bit quantity");
	if (nsteps < factor && factor % nsteps != 0)
		ERR(fa, D_LLQUANT_STEPVAL,
		    "llquantize() argument #4 (steps) must evenly divide argument #1 (factor) when steps<factor");
	if (nsteps > factor) {
		if (nsteps % factor != 0)
			ERR(fa, D_LLQUANT_STEPVAL,
			    "llquantize() argument #4 (steps) must be a multiple of argument #1 (factor) when steps>factor");
		unsigned __int128 pw = 1;
		for (int64_t i = 0; i <= lmag && pw <= (unsigned __int128)UINT64_MAX; i++)
			pw *= (unsigned __int128)factor;
		if (lmag == 0 ? (factor * factor) % nsteps != 0 :
		    (pw <= (unsigned __int128)UINT64_MAX && (uint64_t)pw % (uint64_t)nsteps != 0))
			ERR(fa, D_LLQUANT_STEPVAL,
			    lmag == 0 ? "llquantize() argument #4 (steps) must evenly divide the square of argument #1 (factor) when steps>factor and lmag==0" :
			    "llquantize() argument #4 (steps) must evenly divide pow(argument #1 (factor), lmag (argument #2) + 1) when steps>factor and lmag==0");
	}
	p[0] = factor;
	p[1] = lmag;
	p[2] = hmag;
	p[3] = nsteps;
}

static const char *aggf_name(int f)
{
	static const char *n[] = { "", "count", "sum", "avg", "min", "max", "stddev",
				   "quantize", "lquantize", "llquantize" };
	return f >= 1 && f <= 9 ? n[f] : "?";
}

/*
 * stack(), ustack(), sym(), func(), mod(), usym(), ufunc(), umod(), uaddr()
 * as aggregation keys: returns the MT_TI_* kind and sets the key size and
 * the key's type; 0 for an ordinary key.
 */
int key_special(struct cc *cc, struct node *k, uint32_t *size)
{
	if (k->k != N_FUNC || k->l->k != N_IDENT)
		return 0;
	struct ident *id = id_lookup(&cc->globals, k->l->name);
	if (!id || id->k != ID_ACTF)
		return 0;
	switch (id->id) {
	case MT_ACT_STACK: case MT_ACT_USTACK: {
		int64_t frames = id->id == MT_ACT_STACK ? 20 : 100;
		if (k->args)
			frames = cint(cc, k->args, id->id == MT_ACT_STACK ?
				      D_STACK_SIZE : D_USTACK_FRAMES,
				      cc_printf(cc, "%s( ) argument #1 must be a non-zero positive integer constant",
						id->name));
		if (frames <= 0)
			ERR(k->args, id->id == MT_ACT_STACK ? D_STACK_SIZE : D_USTACK_FRAMES,
			    "%s( ) argument #1 must be a non-zero positive integer constant",
			    id->name);
		*size = (uint32_t)(frames + (id->id == MT_ACT_USTACK)) * 8;
		k->id = id;
		k->type = cc->t_stack;
		return id->id == MT_ACT_STACK ? MT_TI_STACK : MT_TI_USTACK;
	}
	case MT_ACT_SYM: case MT_ACT_MOD: case MT_ACT_USYM: case MT_ACT_UMOD:
	case MT_ACT_UADDR:
		if (!k->args || k->args->next)
			ERR(k, D_PROTO_LEN, "%s( ) prototype mismatch: %d args passed, 1 expected",
			    id->name, k->args ? 2 : 0);
		sema_expr(cc, k->args);
		*size = id->id == MT_ACT_USYM || id->id == MT_ACT_UMOD ||
			id->id == MT_ACT_UADDR ? 16 : 8;
		k->id = id;
		k->type = id->id == MT_ACT_USYM || id->id == MT_ACT_UMOD ||
			  id->id == MT_ACT_UADDR ? cc->t_usymaddr : cc->t_symaddr;
		return id->id == MT_ACT_SYM ? MT_TI_SYM : id->id == MT_ACT_MOD ? MT_TI_MOD :
		       id->id == MT_ACT_USYM ? MT_TI_USYM : id->id == MT_ACT_UMOD ?
		       MT_TI_UMOD : MT_TI_UADDR;
	}
	return 0;
}

/* A key key_special() typed: not a subroutine call such as strlen(). */
static int is_special_key(const struct node *k)
{
	return k->k == N_FUNC && k->id && k->id->k == ID_ACTF;
}

/* The aggregating function @name is assigned; D_AGG_FUNC if none. */
static struct ident *agg_func(struct cc *cc, struct node *s, struct node *an)
{
	struct node *f = s->r;
	if (f->k != N_FUNC || f->l->k != N_IDENT)
		ERR(s, D_AGG_FUNC, "@%s must be assigned the result of an aggregating function",
		    an->name);
	struct ident *fid = id_lookup(&cc->globals, f->l->name);
	if (!fid)
		ERR(f, D_FUNC_UNDEF, "undefined function name: %s", f->l->name);
	if (fid->k != ID_AGGF)
		ERR(s, D_AGG_FUNC, "@%s must be assigned the result of an aggregating function",
		    an->name);
	f->id = fid;
	return fid;
}

/* Cook the keys; returns their number. */
static int agg_keys(struct cc *cc, struct node *keys, struct node *an)
{
	int nk = 0;
	for (struct node *k = keys; k; k = k->next) {
		uint32_t ksz;
		int tk = key_special(cc, k, &ksz);
		if (tk) {
			k->cval = tk;
			k->slen = ksz;
			nk++;
			continue;
		}
		sema_expr(cc, k);
		if (k->is_action || ty_is_void(k->type))
			ERR(k, D_KEY_TYPE, "@%s[ ] key #%d is of type void", an->name, nk + 1);
		if (k->is_agg)
			ERR(k, D_AGG_SCALAR, "aggregation may not be used as a key");
		nk++;
	}
	return nk;
}

/* The function's argument count, as dtrace words each mismatch. */
static void agg_nargs(struct cc *cc, struct node *f, struct ident *fid)
{
	int na = 0;
	for (struct node *a = f->args; a; a = a->next)
		na++;
	if (na < fid->minargs || (fid->maxargs >= 0 && na > fid->maxargs) ||
	    (fid->id == MT_AGG_QUANTIZE && na > 2) ||
	    (fid->id == MT_AGG_LQUANTIZE && na > 5) ||
	    (fid->id == MT_AGG_LLQUANTIZE && na > 6) ||
	    ((fid->id == MT_AGG_SUM || fid->id == MT_AGG_AVG || fid->id == MT_AGG_MIN ||
	      fid->id == MT_AGG_MAX || fid->id == MT_AGG_STDDEV) && na != 1)) {
		int exp = fid->minargs;
		if (na > exp && fid->maxargs < 0)
			ERR(f, D_PROTO_LEN, "%s( ) prototype mismatch: %d args passed, at most %d expected",
			    fid->name, na, fid->id == MT_AGG_QUANTIZE ? 2 :
			    fid->id == MT_AGG_LQUANTIZE ? 5 : 6);
		if (exp == 0 || fid->maxargs == exp)
			ERR(f, D_PROTO_LEN, "%s( ) prototype mismatch: %d arg%s passed, %d expected",
			    fid->name, na, na == 1 ? "" : "s", exp);
		ERR(f, D_PROTO_LEN, "%s( ) prototype mismatch: %d arg%s passed, at least %d expected",
		    fid->name, na, na == 1 ? "" : "s", exp);
	}
}

/*
 * Cook the function's arguments: the value, the (l)lquantize parameters
 * into par[], and the increment, which is returned (NULL if none).
 */
static struct node *agg_args(struct cc *cc, struct node *f, struct ident *fid,
			     int64_t *par)
{
	agg_nargs(cc, f, fid);
	if (f->args) {
		struct node *v = f->args;
		sema_expr(cc, v);
		if (v->is_action || ty_is_void(v->type) || !(ty_is_scalar(v->type)))
			ERR(v, D_AGG_SCALAR, "%s( ) argument #1 must be of scalar type",
			    fid->name);
	}
	struct node *incr = NULL;
	if (fid->id == MT_AGG_LQUANTIZE) {
		lquant_params(cc, f, par);
		struct node *st = f->args->next->next->next;
		incr = st ? st->next : NULL;
	} else if (fid->id == MT_AGG_LLQUANTIZE) {
		llquant_params(cc, f, par);
		incr = f->args->next->next->next->next->next;
	} else if (fid->id == MT_AGG_QUANTIZE) {
		incr = f->args->next;
	}
	if (incr) {
		sema_expr(cc, incr);
		if (!ty_is_scalar(incr->type))
			ERR(incr, D_PROTO_ARG, "%s( ) increment value (argument #%d) must be of scalar type",
			    fid->name, fid->id == MT_AGG_QUANTIZE ? 2 : fid->id == MT_AGG_LQUANTIZE ? 5 : 6);
	}
	return incr;
}

/* The runtime table entry of a new aggregation. */
static struct mt_agg agg_table(struct cc *cc, struct ident *fid, struct node *keys,
			       int nk, const int64_t *par)
{
	struct mt_agg ag = {0};
	ag.func = (uint32_t)fid->id;
	ag.nkeys = (uint32_t)nk;
	ag.keysize = 8;
	for (struct node *k = keys; k; k = k->next)
		ag.keysize += is_special_key(k) ? (uint32_t)((k->slen + 7) & ~7u) :
			      ty_is_string(k->type) ? (cc->strsize + 7) & ~7u :
			      (ty_is_sou(k->type) || TY_K(k->type) == T_ARRAY) ?
			      (k->type->canon->size + 7) & ~7u : 8;
	memcpy(ag.param, par, sizeof(ag.param));
	switch (fid->id) {
	case MT_AGG_AVG: ag.nvals = 2; break;
	case MT_AGG_STDDEV: ag.nvals = 4; break;
	case MT_AGG_QUANTIZE: ag.nvals = MT_QUANTIZE_NBUCKETS; break;
	case MT_AGG_LQUANTIZE:
		ag.nvals = mt_lquantize_nbuckets(par[0], par[1], par[2]);
		break;
	case MT_AGG_LLQUANTIZE:
		ag.nvals = mt_llquantize_nbins(par[0], par[1], par[2], par[3]);
		break;
	default: ag.nvals = 1;
	}
	return ag;
}

/* The consumer's description of a new aggregation's keys. */
static struct mt_agg_info agg_describe(struct cc *cc, const char *name,
				   struct node *keys, int nk)
{
	struct mt_agg_info ai = {0};
	ai.name = strdup(name);
	ai.nkeys = (uint32_t)nk;
	ai.keys = calloc((size_t)(nk ? nk : 1), sizeof(*ai.keys));
	int i = 0;
	for (struct node *k = keys; k; k = k->next, i++) {
		struct type *t = k->type;
		ai.keys[i].ctype = strdup(t->name);
		if (is_special_key(k)) {
			ai.keys[i].kind = (uint16_t)k->cval;
			ai.keys[i].size = (uint32_t)k->slen;
		} else if (ty_is_string(t)) {
			ai.keys[i].kind = MT_TI_STR;
			ai.keys[i].size = cc->strsize;
		} else if (ty_is_sou(t) || TY_K(t) == T_ARRAY) {
			ai.keys[i].kind = MT_TI_MEM;
			ai.keys[i].size = t->canon->size;
		} else {
			ai.keys[i].kind = TY_K(t) == T_PTR ? MT_TI_UINT :
				t->canon->is_signed || TY_K(t) == T_ENUM ? MT_TI_INT : MT_TI_UINT;
			ai.keys[i].is_ptr = TY_K(t) == T_PTR;
			ai.keys[i].size = t->canon->size ? t->canon->size : 8;
		}
	}
	return ai;
}

/* The first use of @name declares it: function, key types, parameters. */
static struct ident *agg_declare(struct cc *cc, struct node *s, struct node *an,
				 struct ident *fid, struct node *keys, int nk,
				 const int64_t *par)
{
	struct ident *id = id_add(cc, &cc->aggs, an->name, ID_AGG);
	id->aggfunc = fid->id;
	id->line = s->line;
	id->nkeys = nk;
	id->ktypes = cc_alloc(cc, (nk ? nk : 1) * sizeof(*id->ktypes));
	int i = 0;
	for (struct node *k = keys; k; k = k->next)
		id->ktypes[i++] = k->type;
	struct mt_agg ag = agg_table(cc, fid, keys, nk, par);
	VEC_PUSH(cc, cc->aggs_v, ag);
	struct mt_agg_info ai = agg_describe(cc, an->name, keys, nk);
	VEC_PUSH(cc, cc->agg_info, ai);
	id->aggid = (int)cc->aggs_v.n;
	return id;
}

/* Every later use of @name must agree with its first. */
static void agg_check_prev(struct cc *cc, struct node *s, struct node *an,
			   struct ident *id, struct ident *fid,
			   struct node *keys, int nk, const int64_t *par)
{
	if (id->aggfunc != fid->id)
		ERR(s, D_AGG_REDEF, "aggregation redefined: @%s\n\t current: @%s = %s( )\n\tprevious: @%s = %s( ) : line %d",
		    an->name, an->name, fid->name, an->name, aggf_name(id->aggfunc), id->line);
	if (id->nkeys != nk)
		ERR(s, D_PROTO_LEN, "@%s[ ] prototype mismatch: %d key%s passed, %d expected",
		    an->name, nk, nk == 1 ? "" : "s", id->nkeys);
	int i = 0;
	for (struct node *k = keys; k; k = k->next, i++)
		if (!ty_compat(id->ktypes[i], k->type) ||
		    ty_is_string(id->ktypes[i]) != ty_is_string(k->type))
			ERR(s, D_PROTO_ARG, "@%s[ ] key #%d is incompatible with prototype:\n\tprototype: %s\n\t      key: %s",
			    an->name, i + 1, id->ktypes[i]->name, tname(k));
	struct mt_agg *ag = &cc->aggs_v.v[id->aggid - 1];
	if (fid->id == MT_AGG_LQUANTIZE) {
		if (ag->param[0] != par[0])
			ERR(s, D_LQUANT_MATCHBASE, "lquantize( ) base (argument #1) doesn't match previous declaration: expected %lld, found %lld",
			    (long long)ag->param[0], (long long)par[0]);
		if (ag->param[1] != par[1])
			ERR(s, D_LQUANT_MATCHLIM, "lquantize( ) limit (argument #2) doesn't match previous declaration: expected %lld, found %lld",
			    (long long)ag->param[1], (long long)par[1]);
		if (ag->param[2] != par[2])
			ERR(s, D_LQUANT_MATCHSTEP, "lquantize( ) step (argument #3) doesn't match previous declaration: expected %lld, found %lld",
			    (long long)ag->param[2], (long long)par[2]);
	} else if (fid->id == MT_AGG_LLQUANTIZE) {
		static const enum mt_dtag tags[] = { D_LLQUANT_MATCHFACTOR, D_LLQUANT_MATCHLMAG,
					      D_LLQUANT_MATCHHMAG, D_LLQUANT_MATCHSTEPS };
		static const char *what[] = { "factor (argument #1)", "lmag (argument #2)",
					      "hmag (argument #3)", "steps (argument #4)" };
		for (int k = 0; k < 4; k++)
			if (ag->param[k] != par[k])
				ERR(s, tags[k], "llquantize() %s doesn't match previous declaration: expected %lld, found %lld",
				    what[k], (long long)ag->param[k], (long long)par[k]);
	}
}

/* One key or value record of the current MT_ACT_AGG action. */
static void agg_rec(struct cc *cc, struct node *e, int is_val)
{
	struct mt_rec r = {0};
	struct mt_rec_info ri = {0};
	uint32_t rtype, rsize;
	if (is_special_key(e)) {
		int stk = e->cval == MT_TI_STACK || e->cval == MT_TI_USTACK;
		r.difo = stk ? 0 : cg_difo(cc, e->args, NULL, NULL);
		r.kind = stk ? MT_REC_STACK : MT_REC_INT;
		r.size = (uint32_t)e->slen;
		if (ti_is_user((int)e->cval))
			r.flags |= MT_RF_UPID;
		ri.kind = (uint16_t)e->cval;
		ri.size = r.size;
		ri.ctype = strdup(e->type->name);
		VEC_PUSH(cc, cc->recs, r);
		VEC_PUSH(cc, cc->rec_info, ri);
		cc->actions.v[cc->actions.n - 1].nrecs++;
		return;
	}
	r.difo = cg_difo(cc, e, &rtype, &rsize);
	r.flags = is_val ? MT_RF_AGGVAL : 0;
	if (rtype == MT_RT_STRING) {
		r.kind = MT_REC_STR;
		r.size = cc->strsize;
		ri.kind = MT_TI_STR;
	} else if (rtype == MT_RT_REF) {
		r.kind = MT_REC_MEM;
		r.size = rsize;
		ri.kind = MT_TI_MEM;
	} else {
		r.kind = MT_REC_INT;
		r.size = 8;
		ri.kind = e->type->canon->is_signed ? MT_TI_INT : MT_TI_UINT;
		if (ri.kind == MT_TI_INT)
			r.flags |= MT_RF_SIGNED;
		ri.is_ptr = TY_K(e->type) == T_PTR;
	}
	ri.size = r.size;
	ri.ctype = strdup(e->type->name);
	r.offset = 0;
	VEC_PUSH(cc, cc->recs, r);
	VEC_PUSH(cc, cc->rec_info, ri);
	cc->actions.v[cc->actions.n - 1].nrecs++;
}

/* The MT_ACT_AGG action: key records, then the value and the increment. */
static void agg_records(struct cc *cc, struct node *s, struct ident *id,
			struct ident *fid, struct node *keys, struct node *incr)
{
	struct mt_action a = {0};
	struct mt_action_info ainf = {0};
	a.kind = MT_ACT_AGG;
	a.rec0 = cc->recs.n;
	a.arg = (uint64_t)id->aggid;
	ainf.line = s->line;
	VEC_PUSH(cc, cc->actions, a);
	VEC_PUSH(cc, cc->action_info, ainf);
	for (struct node *k = keys; k; k = k->next)
		agg_rec(cc, k, 0);
	if (fid->id != MT_AGG_COUNT && s->r->args)
		agg_rec(cc, s->r->args, 1);
	if (incr)
		agg_rec(cc, incr, 1);
}

/* @name[keys] = func(args): cook, declare or check, and record. */
void agg_assign(struct cc *cc, struct node *s)
{
	struct node *l = s->l, *keys = NULL, *an = l;
	if (l->k == N_OP2) {
		an = l->l;
		keys = l->args;
		if (!keys)
			ERR(l, D_SYNTAX, "syntax error near \"]\"");
	}
	struct ident *fid = agg_func(cc, s, an);
	int nk = agg_keys(cc, keys, an);
	int64_t par[4] = {0};
	struct node *incr = agg_args(cc, s->r, fid, par);
	struct ident *id = id_lookup(&cc->aggs, an->name);
	if (!id)
		id = agg_declare(cc, s, an, fid, keys, nk, par);
	else
		agg_check_prev(cc, s, an, id, fid, keys, nk, par);
	agg_records(cc, s, id, fid, keys, incr);
}
