/*
 * Typed args[] from the target (struct mt_ctypes): the C type a target
 * names for a probe argument is parsed as a D type name; if it names
 * something not yet declared, the target's D declarations for it are
 * compiled first, with the lexer switched to that text and back.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "cc.h"

#define ERR(n, tag, ...) cc_error(cc, (n)->line, tag, __VA_ARGS__)

struct lexsave {
	const char *text, *p;
	int line, have_peek, depth, brackets;
	struct tok tok, peek;
};

static void lex_save(struct cc *cc, struct lexsave *s)
{
	s->text = cc->text;
	s->p = cc->p;
	s->line = cc->line;
	s->have_peek = cc->have_peek;
	s->depth = cc->depth;
	s->brackets = cc->brackets;
	s->tok = cc->tok;
	s->peek = cc->peek;
}

static void lex_restore(struct cc *cc, const struct lexsave *s)
{
	cc->text = s->text;
	cc->p = s->p;
	cc->line = s->line;
	cc->have_peek = s->have_peek;
	cc->depth = s->depth;
	cc->brackets = s->brackets;
	cc->tok = s->tok;
	cc->peek = s->peek;
}

/* Parse text as a type name; NULL if it names nothing D knows, or
   (unless incomplete_ok) an incomplete struct/union/enum object (a
   pointer to one is fine). */
static struct type *parse_type(struct cc *cc, const char *text, int line, int incomplete_ok)
{
	struct lexsave s;
	struct type *t = NULL;
	jmp_buf save;
	struct mt_diag d0 = *cc->diag;

	lex_save(cc, &s);
	memcpy(save, cc->jb, sizeof(jmp_buf));
	if (setjmp(cc->jb) == 0) {
		lex_init(cc, text, line);
		lex_next(cc);
		t = parse_typename(cc);
		if (cc->tok.k != TK_EOF)
			t = NULL;
	} else {
		t = NULL;
		*cc->diag = d0;
	}
	memcpy(cc->jb, save, sizeof(jmp_buf));
	lex_restore(cc, &s);
	if (t) {
		struct type *b = t;
		while (TY_K(b) == T_PTR || TY_K(b) == T_ARRAY)
			b = b->canon->base;
		if ((ty_is_sou(b) || TY_K(b) == T_ENUM) && !b->canon->complete &&
		    b == t && !incomplete_ok)
			return NULL;	/* an incomplete object, not a pointer */
	}
	return t;
}

static struct type *try_type(struct cc *cc, const char *text, int line)
{
	return parse_type(cc, text, line, 0);
}

/* "struct", "union" or "enum" when the current token is that keyword. */
static const char *tag_keyword(const struct cc *cc)
{
	if (cc->tok.k != TK_KEYWORD)
		return NULL;
	switch (cc->tok.kw) {
	case KW_STRUCT: return "struct";
	case KW_UNION: return "union";
	case KW_ENUM: return "enum";
	default: return NULL;
	}
}

/*
 * `struct X;` (or union/enum) for a tag D already knows: the target's text
 * forward-declares what it needs, which may have been declared by an
 * earlier call; D would call the repeat a useless declaration.
 */
static int known_forward_decl(struct cc *cc, int target_only)
{
	struct lexsave s;
	const char *kw;
	char name[256];
	int known;

	if ((kw = tag_keyword(cc)) == NULL)
		return 0;
	lex_save(cc, &s);
	lex_next(cc);
	known = (cc->tok.k == TK_IDENT || cc->tok.k == TK_TYPENAME) &&
		snprintf(name, sizeof(name), "%s %s", kw, cc->tok.text) > 0 &&
		ty_lookup(cc, name) != NULL &&
		(!target_only || ty_lookup(cc, name)->canon->from_target);
	if (known) {
		lex_next(cc);
		known = cc->tok.k == TK_OP && cc->tok.op == OP_SEMI;
	}
	lex_restore(cc, &s);
	return known;
}

/*
 * `struct X { ... };` (or union/enum) for a tag D already has complete:
 * every call of the target's decls() describes what a type needs from
 * scratch, so a second type (args[2]->task after thread_t) repeats the
 * definitions the first one brought (struct queue_entry); they describe the
 * same kernel type and are skipped, up to and including the ';'.
 */
static int skip_known_definition(struct cc *cc, int target_only)
{
	struct lexsave s;
	const char *kw;
	char name[256];
	int depth = 0;

	if ((kw = tag_keyword(cc)) == NULL)
		return 0;
	lex_save(cc, &s);
	lex_next(cc);
	if ((cc->tok.k != TK_IDENT && cc->tok.k != TK_TYPENAME) ||
	    snprintf(name, sizeof(name), "%s %s", kw, cc->tok.text) <= 0 ||
	    !ty_lookup(cc, name) || !ty_lookup(cc, name)->canon->complete ||
	    (target_only && !ty_lookup(cc, name)->canon->from_target)) {
		lex_restore(cc, &s);
		return 0;
	}
	lex_next(cc);
	if (!lex_is_op(cc, OP_LBRACE)) {
		lex_restore(cc, &s);
		return 0;
	}
	while (cc->tok.k != TK_EOF) {
		if (lex_is_op(cc, OP_LBRACE))
			depth++;
		else if (lex_is_op(cc, OP_RBRACE))
			depth--;
		else if (depth == 0 && lex_is_op(cc, OP_SEMI))
			break;
		lex_next(cc);
	}
	if (cc->tok.k != TK_EOF)
		lex_next(cc);
	return 1;
}

/*
 * In the program: a declaration of a kernel type D already has from the
 * target (the kernel D library brought struct thread and struct task),
 * e.g. `mt-live decls` output pasted before a clause, describes the same
 * type and is skipped.  1 when skipped.
 */
int ctypes_skip_target_decl(struct cc *cc)
{
	if (known_forward_decl(cc, 1)) {
		lex_next(cc);
		lex_next(cc);
		lex_next(cc);
		return 1;
	}
	return skip_known_definition(cc, 1);
}

/* Compile D declarations text (errors are the program's errors). */
static void compile_decls(struct cc *cc, const char *text, int line)
{
	struct lexsave s;
	lex_save(cc, &s);
	lex_init(cc, cc_strdup(cc, text), line);
	cc->c_layout++;
	lex_next(cc);
	while (cc->tok.k != TK_EOF) {
		if (cc->tok.k == TK_OP && cc->tok.op == OP_SEMI) {
			lex_next(cc);
			continue;
		}
		if (known_forward_decl(cc, 0)) {
			lex_next(cc);
			lex_next(cc);
			lex_next(cc);
			continue;
		}
		if (skip_known_definition(cc, 0))
			continue;
		decl_toplevel(cc, 0);
	}
	cc->c_layout--;
	lex_restore(cc, &s);
}

/* A clause of a kernel provider: asking about its probes creates the
   target that answers decls() and symbol() (sizeof(struct task) before
   any args[] of the clause was typed); asked as each clause begins, so
   that the CLI knows a failed program's kernel clauses. */
void ctypes_ask_clause(struct cc *cc)
{
	const struct mt_ctypes *ct = cc->in->ctypes;

	if (ct && ct->nargs && cc->cur_clause >= 0 &&
	    (uint32_t)cc->cur_clause < cc->clause_info.n) {
		const struct mt_clause_info *ci =
			&cc->clause_info.v[cc->cur_clause];
		for (uint32_t k = 0; k < ci->npdescs; k++)
			(void)ct->nargs(ct->arg, ci->pdescs[k].prov,
					ci->pdescs[k].mod, ci->pdescs[k].func,
					ci->pdescs[k].name);
	}
}

static int target_decls(struct cc *cc, const char *ctype, int line);

/*
 * A typedef of the target's named in the clause being parsed (parse.c:
 * a cast or sizeof): the target learns the clause's descriptions first,
 * as for args[].  Whether name is a type name now; identifiers D knows
 * (built-ins, globals, inlines) are never asked for.
 */
int ctypes_typedef(struct cc *cc, const char *name, int line)
{
	const struct mt_ctypes *ct = cc->in->ctypes;
	const struct clause *c = cc->parsing;

	if (!ct || !ct->decls || id_lookup(&cc->globals, name))
		return 0;
	for (int k = 0; c && ct->nargs && k < c->npd; k++)
		(void)ct->nargs(ct->arg, c->pds[k].prov, c->pds[k].mod,
				c->pds[k].func, c->pds[k].name);
	return target_decls(cc, name, line) && ty_lookup(cc, name) != NULL;
}

/* Compile the target's declarations of ctype; 0 when it has none. */
static int target_decls(struct cc *cc, const char *ctype, int line)
{
	const struct mt_ctypes *ct = cc->in->ctypes;
	char *text;

	if (!ct || !ct->decls || !ctype)
		return 0;
	ctypes_ask_clause(cc);
	if ((text = ct->decls(ct->arg, ctype)) == NULL)
		return 0;
	compile_decls(cc, text, line);
	free(text);
	return 1;
}

/*
 * Complete a forward-declared struct/union/enum from the target's
 * declarations (a pointer argument's pointee, reached by -> or .).
 * Returns whether t is complete now.
 */
int ctypes_complete(struct cc *cc, struct type *t, int line)
{
	if (!t->canon->complete)
		target_decls(cc, t->name, line);
	return t->canon->complete;
}

typedef const char *(*argq_fn)(void *arg, const char *prov, const char *mod,
				const char *func, const char *name, int i);

/* The answer of q for args[i] when every description of the clause
   gives the same one, else NULL. */
static const char *clause_agrees(struct cc *cc, argq_fn q, int i)
{
	const struct mt_ctypes *ct = cc->in->ctypes;
	const char *name = NULL;

	if (!ct || !q || cc->cur_clause < 0 ||
	    (uint32_t)cc->cur_clause >= cc->clause_info.n)
		return NULL;
	const struct mt_clause_info *ci = &cc->clause_info.v[cc->cur_clause];
	for (uint32_t k = 0; k < ci->npdescs; k++) {
		const struct mt_pdesc *pd = &ci->pdescs[k];
		const char *t = q(ct->arg, pd->prov, pd->mod, pd->func,
				  pd->name, i);
		if (!t || (name && strcmp(name, t) != 0))
			return NULL;
		name = cc_strdup(cc, t);
	}
	return name;
}

/* A C type name from the target as a D type, declaring it first if
   needed; NULL when neither D nor the target knows it. */
static struct type *target_type(struct cc *cc, const char *name, int line)
{
	struct type *t = try_type(cc, name, line);

	if (!t && target_decls(cc, name, line))
		t = try_type(cc, name, line);
	return t;
}

struct type *ctypes_argtype(struct cc *cc, int i, int line)
{
	const struct mt_ctypes *ct = cc->in->ctypes;
	const char *name = ct ? clause_agrees(cc, ct->argtype, i) : NULL;

	return name ? target_type(cc, name, line) : NULL;
}

/*
 * A translated args[i] (struct mt_ctypes argnative): the native type, and
 * in *xname the translated type's name as the target gives it (the D
 * library declares it).  NULL when args[i] is not translated for every
 * description of the clause; an error when the target names a native
 * type nobody declares.
 */
struct type *ctypes_argnative(struct cc *cc, struct node *n, int i,
			      const char **xname)
{
	const struct mt_ctypes *ct = cc->in->ctypes;
	const char *nat = ct ? clause_agrees(cc, ct->argnative, i) : NULL;
	struct type *t;

	if (!nat || (*xname = clause_agrees(cc, ct->argtype, i)) == NULL)
		return NULL;
	if ((t = target_type(cc, nat, n->line)) == NULL)
		ERR(n, D_XLATE_NONE, "args[%d]: native type \"%s\" is unknown",
		    i, nat);
	return t;
}

/*
 * args[idx] with a constant index: dtrace refuses one beyond the probe's
 * arguments at compile time (D_ARGS_IDX) instead of reading whatever is
 * in that argument slot.  Checked for each description of the clause the
 * target knows the arguments of.
 */
void ctypes_check_argidx(struct cc *cc, struct node *n, int64_t idx)
{
	const struct mt_ctypes *ct = cc->in->ctypes;

	if (!ct || !ct->nargs || cc->cur_clause < 0 ||
	    (uint32_t)cc->cur_clause >= cc->clause_info.n)
		return;
	const struct mt_clause_info *ci = &cc->clause_info.v[cc->cur_clause];
	for (uint32_t k = 0; k < ci->npdescs; k++) {
		const struct mt_pdesc *pd = &ci->pdescs[k];
		int nargs = ct->nargs(ct->arg, pd->prov, pd->mod, pd->func,
				      pd->name);

		char *why = nargs >= 0 && idx >= nargs && ct->argmissing ?
			ct->argmissing(ct->arg, pd->prov, pd->mod, pd->func, pd->name,
				       (int)idx) : NULL;
		if (why) {
			char *msg = cc_strdup(cc, why);
			free(why);
			ERR(n, D_ARGS_IDX, "%s", msg);
		}
		if (nargs >= 0 && (idx < 0 || idx >= nargs))
			ERR(n, D_ARGS_IDX, "index %lld is out of range for "
			    "%s:%s:%s:%s args[ ]", (long long)idx, pd->prov,
			    pd->mod, pd->func, pd->name);
	}
}

/*
 * curthread in a clause of kernel probes: the kernel's `struct thread *`
 * (from the target's DWARF declarations), so curthread->task->... reads
 * typed kernel memory.  NULL elsewhere (the local target, whose curthread
 * stays void *).
 */
struct type *ctypes_curthread(struct cc *cc, int line)
{
	struct type *t = try_type(cc, "struct thread *", line);

	if (t && t->canon->base->canon->complete)
		return t;
	if (!target_decls(cc, "struct thread", line))
		return NULL;
	t = try_type(cc, "struct thread *", line);
	return t && t->canon->base->canon->complete ? t : NULL;
}

/*
 * A kernel global variable by name (`sym or mod`sym): its address and
 * type from the target, the type's declarations compiled when D does not
 * know it yet.  NULL when the target has no such symbol (the local
 * target has none), *addr then 0, or no type for it, *addr not 0.
 */
struct type *ctypes_symbol(struct cc *cc, const char *ref, uint64_t *addr,
			   int line)
{
	const struct mt_ctypes *ct = cc->in->ctypes;
	const char *bq = strchr(ref, '`');
	char *mod, *ctype;
	struct type *t;

	if (!ct || !ct->symbol || !bq)
		return NULL;
	mod = bq == ref ? NULL : cc_strndup(cc, ref, (size_t)(bq - ref));
	ctypes_ask_clause(cc);
	if ((ctype = ct->symbol(ct->arg, mod, bq + 1, addr)) == NULL)
		return NULL;
	/* an object of an incomplete type (a UP kernel's empty simple lock
	   struct: D has no zero-sized types) still has an address */
	t = parse_type(cc, ctype, line, 1);
	if (!t && target_decls(cc, ctype, line))
		t = parse_type(cc, ctype, line, 1);
	free(ctype);
	return t;
}

/* A D test that the firing probe is pd: its non-empty fields compared. */
static char *pdesc_test(struct cc *cc, const struct mt_pdesc *pd)
{
	static const char *const var[4] = { "probeprov", "probemod", "probefunc",
					     "probename" };
	const char *field[4] = { pd->prov, pd->mod, pd->func, pd->name };
	char *t = cc_strdup(cc, "1");

	for (int i = 0; i < 4; i++)
		if (field[i] && *field[i])
			t = cc_printf(cc, "%s && %s == \"%s\"", t, var[i], field[i]);
	return t;
}

/*
 * The target's D text for locals->var at every description of the clause
 * (errors are the program's).  Where the descriptions give the variable
 * different locations, the text selects by the firing probe's names:
 * (probe is pd0 ? text0 : probe is pd1 ? text1 : ... textN), each
 * description naming one site; the type must be the same at each.
 */
static char *local_text(struct cc *cc, struct node *n, char **ctype)
{
	const struct mt_ctypes *ct = cc->in->ctypes;
	const struct mt_clause_info *ci = &cc->clause_info.v[cc->cur_clause];
	char err[800], *text = NULL, *sel = NULL;
	int differ = 0;

	for (uint32_t k = ci->npdescs; k-- > 0;) {
		const struct mt_pdesc *pd = &ci->pdescs[k];
		char *ty = NULL, *s = ct->local(ct->arg, pd->prov, pd->mod, pd->func,
						pd->name, n->name, &ty, err, sizeof err);
		if (s && text && strcmp(ty, *ctype) != 0)
			snprintf(err, sizeof err, "locals->%s: its type differs "
				 "between the clause's probes (%s, %s)", n->name, ty, *ctype);
		if (!s || (text && strcmp(ty, *ctype) != 0)) {
			free(s);
			free(ty);
			sema_pred_first(cc);
			ERR(n, D_IDENT_UNDEF, "%s", err);
		}
		if (!text) {
			text = sel = cc_strdup(cc, s);
			*ctype = cc_strdup(cc, ty);
		} else {
			differ |= strcmp(s, text) != 0;
			sel = cc_printf(cc, "((%s) ? %s : %s)", pdesc_test(cc, pd), s, sel);
		}
		free(s);
		free(ty);
	}
	return differ ? sel : text;
}

/*
 * locals->var (struct mt_ctypes local): n becomes the target's expression
 * for the variable, parsed and checked as if written there.  0 when the
 * target has no locals or the program declares a variable `locals`.
 */
int ctypes_local(struct cc *cc, struct node *n)
{
	const struct mt_ctypes *ct = cc->in->ctypes;
	struct lexsave s;
	struct node *e;
	char *text, *ctype = NULL;

	if (!ct || !ct->local || n->op != OP_ARROW || n->l->k != N_IDENT ||
	    strcmp(n->l->name, "locals") != 0 || id_lookup(&cc->globals, "locals") ||
	    cc->cur_clause < 0 || (uint32_t)cc->cur_clause >= cc->clause_info.n)
		return 0;
	text = local_text(cc, n, &ctype);
	if (!text || !target_type(cc, ctype, n->line)) {
		sema_pred_first(cc);
		ERR(n, D_IDENT_UNDEF, "locals->%s: type \"%s\" is unknown", n->name,
		    ctype ? ctype : "?");
	}
	lex_save(cc, &s);
	lex_init(cc, text, n->line);
	lex_next(cc);
	e = parse_expr(cc);
	lex_restore(cc, &s);
	sema_expr(cc, e);
	e->next = n->next;	/* n may be an argument of a list */
	*n = *e;
	return 1;
}

/*
 * The locals print(locals) shows: those the target names at the clause's
 * first description that every description reads with the same type
 * (and whose names D can spell), as "TYPE NAME;" members in *members.
 */
static char **located_locals(struct cc *cc, struct node *n, char *site, size_t sitelen,
			     char **members)
{
	const struct mt_ctypes *ct = cc->in->ctypes;
	const struct mt_clause_info *ci = &cc->clause_info.v[cc->cur_clause];
	const struct mt_pdesc *p0 = &ci->pdescs[0];
	char err[800], **names = ct->local_names(ct->arg, p0->prov, p0->mod, p0->func,
						 p0->name, site, sitelen, err, sizeof err);
	size_t k = 0;

	if (!names) {
		sema_pred_first(cc);
		ERR(n, D_IDENT_UNDEF, "print(locals): %s", err);
	}
	*members = cc_strdup(cc, "");
	for (size_t i = 0; names[i]; i++) {
		char *ty0 = NULL;
		int ok = !kw_is(names[i]) && !ty_lookup(cc, names[i]);
		for (uint32_t d = 0; ok && d < ci->npdescs; d++) {
			const struct mt_pdesc *pd = &ci->pdescs[d];
			char *ty = NULL, *s = ct->local(ct->arg, pd->prov, pd->mod, pd->func,
							pd->name, names[i], &ty, err, sizeof err);
			ok = s && (!ty0 || strcmp(ty, ty0) == 0);
			if (!ty0 && ok)
				ty0 = cc_strdup(cc, ty);
			free(s);
			free(ty);
		}
		if (ok && target_type(cc, ty0, n->line)) {
			*members = cc_printf(cc, "%s %s %s;", *members, ty0, names[i]);
			names[k++] = names[i];
		} else {
			free(names[i]);
		}
	}
	names[k] = NULL;
	return names;
}

/*
 * print(locals) (struct mt_ctypes local_names): the argument becomes a
 * struct of the located locals, filled in scratch and printed as print()
 * prints a struct:
 *   *(this->__mt_locals = (struct T *)alloca(sizeof (struct T)),
 *     this->__mt_locals->NAME = locals->NAME, ..., this->__mt_locals)
 * T is "locals_FUNC_0xOFF" after the clause's (first) site, declared once;
 * each locals->NAME compiles as anywhere (ctypes_local).
 */
int ctypes_print_locals(struct cc *cc, struct node *n)
{
	const struct mt_ctypes *ct = cc->in->ctypes;
	struct node *a = n->args, *e;
	char site[256], *members, *tag, *text, **names;
	struct lexsave s;

	if (!ct || !ct->local || !ct->local_names || !a || a->k != N_IDENT ||
	    strcmp(a->name, "locals") != 0 || id_lookup(&cc->globals, "locals") ||
	    cc->cur_clause < 0 || (uint32_t)cc->cur_clause >= cc->clause_info.n)
		return 0;
	names = located_locals(cc, n, site, sizeof site, &members);
	if (!names[0]) {
		free(names);
		sema_pred_first(cc);
		if (cc->clause_info.v[cc->cur_clause].npdescs > 1)
			ERR(n, D_IDENT_UNDEF, "print(locals): no local variable or parameter "
			    "has a location of one type at every probe of the clause "
			    "(the first at %s)", site);
		ERR(n, D_IDENT_UNDEF, "print(locals): no local variable or parameter "
		    "has a location at %s", site);
	}
	tag = cc_printf(cc, "struct locals_%s", site);
	for (char *p = tag + 7; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			*p = '_';
	if (!try_type(cc, tag, n->line))
		compile_decls(cc, cc_printf(cc, "%s {%s };", tag, members), n->line);
	text = cc_printf(cc, "*(this->__mt_locals = (%s *)alloca(sizeof (%s))", tag, tag);
	for (size_t i = 0; names[i]; i++) {
		text = cc_printf(cc, "%s, this->__mt_locals->%s = locals->%s", text,
				 names[i], names[i]);
		free(names[i]);
	}
	free(names);
	text = cc_printf(cc, "%s, this->__mt_locals)", text);
	lex_save(cc, &s);
	lex_init(cc, text, n->line);
	lex_next(cc);
	e = parse_expr(cc);
	lex_restore(cc, &s);
	e->next = a->next;
	n->args = e;
	return 1;
}
