/*
 * Parser: recursive descent over the D grammar (dtrace's dt_grammar.y).
 * Expressions become AST nodes; declarations are applied as they are read
 * (decl.c), since the lexer depends on them.  The parser returns the
 * source's clauses as a list (parse_source); compile.c cooks them once
 * every source is parsed (see the pass list there).
 */
#include <string.h>
#include "cc.h"

static char *expect_name(struct cc *cc)
{
	if (cc->tok.k != TK_IDENT && cc->tok.k != TK_TYPENAME)
		lex_syntax_error(cc);
	char *s = cc->tok.text;
	lex_next(cc);
	return s;
}

static struct node *assign_expr(struct cc *cc);

/*
 * A node's line is the lexer's line when the node is complete (after its
 * lookahead token), as with dtrace's yacc reductions: diagnostics then
 * name the same line dtrace does.
 */
static struct node *fin(struct cc *cc, struct node *n)
{
	n->line = cc->line;
	return n;
}
static struct node *cast_expr(struct cc *cc);
static struct node *cond_expr(struct cc *cc);
static struct node *unary(struct cc *cc);

/*
 * `(vm_map_t)arg0`, `sizeof (task_t)`: an identifier D does not know
 * that the target declares as a type (a kernel typedef) is a type name;
 * its declarations are compiled now (ctypes_typedef).
 */
static int target_typedef(struct cc *cc, struct tok *pk)
{
	if (pk->k != TK_IDENT || !ctypes_typedef(cc, pk->text, pk->line))
		return 0;
	pk->k = TK_TYPENAME;
	return 1;
}

/* Does the current token start a type name (for casts and sizeof)? */
int parse_at_type(struct cc *cc)
{
	if (cc->tok.k == TK_TYPENAME)
		return 1;
	if (cc->tok.k != TK_KEYWORD)
		return 0;
	switch (cc->tok.kw) {
	case KW_CHAR: case KW_SHORT: case KW_INT: case KW_LONG: case KW_SIGNED:
	case KW_UNSIGNED: case KW_FLOAT: case KW_DOUBLE: case KW_VOID:
	case KW_STRING: case KW_STRUCT: case KW_UNION: case KW_ENUM:
	case KW_CONST: case KW_VOLATILE: case KW_USERLAND:
		return 1;
	}
	return 0;
}

struct type *parse_typename(struct cc *cc)
{
	struct declspec ds;
	char *name = NULL;
	decl_specs(cc, &ds, 0);
	return decl_declarator(cc, ds.type, &name, 1, NULL);
}

static struct node *arg_list(struct cc *cc, int close)
{
	struct node *head = NULL, **tail = &head;
	if (lex_is_op(cc, close))
		return NULL;
	for (;;) {
		struct node *a = assign_expr(cc);
		*tail = a;
		tail = &a->next;
		if (!lex_is_op(cc, OP_COMMA))
			break;
		lex_next(cc);
	}
	return head;
}

static struct node *primary(struct cc *cc)
{
	struct tok *t = &cc->tok;
	struct node *n;
	int line = t->line;

	switch (t->k) {
	case TK_INT:
		n = nd_new(cc, N_INT, line);
		n->ival = (int64_t)t->ival;
		n->is_unsigned_lit = t->is_unsigned | (t->is_long << 1) |
				     (t->text ? 8 : 0);
		lex_next(cc);
		return fin(cc, n);
	case TK_STRING:
		n = nd_new(cc, N_STRING, line);
		n->name = t->text;
		n->slen = t->len;
		lex_next(cc);
		/* adjacent literals concatenate */
		while (cc->tok.k == TK_STRING) {
			n->name = cc_printf(cc, "%s%s", n->name, cc->tok.text);
			n->slen += cc->tok.len;
			lex_next(cc);
		}
		return fin(cc, n);
	case TK_IDENT:
		n = nd_new(cc, N_IDENT, line);
		n->name = t->text;
		lex_next(cc);
		/* mod`sym */
		if (cc->tok.k == TK_BACKQUOTE) {
			lex_next(cc);
			char *s = expect_name(cc);
			n->name = cc_printf(cc, "%s`%s", n->name, s);
		}
		return fin(cc, n);
	case TK_BACKQUOTE:
		lex_next(cc);
		n = nd_new(cc, N_IDENT, line);
		n->name = cc_printf(cc, "`%s", expect_name(cc));
		return fin(cc, n);
	case TK_AGG:
		n = nd_new(cc, N_AGG, line);
		n->name = t->text;
		lex_next(cc);
		return fin(cc, n);
	case TK_KEYWORD:
		if (t->kw == KW_SELF || t->kw == KW_THIS) {
			int scope = t->kw == KW_SELF ? 1 : 2;
			lex_next(cc);
			lex_expect_op(cc, OP_ARROW);
			n = nd_new(cc, N_VAR, line);
			n->scope = scope;
			n->name = expect_name(cc);
			return fin(cc, n);
		}
		if (t->kw == KW_XLATE) {
			lex_next(cc);
			lex_expect_op(cc, OP_LT);
			n = nd_new(cc, N_XLATE, line);
			n->ctype = parse_typename(cc);
			lex_expect_op(cc, OP_GT);
			lex_expect_op(cc, OP_LPAR);
			n->l = parse_expr(cc);
			lex_expect_op(cc, OP_RPAR);
			return fin(cc, n);
		}
		if (t->kw == KW_OFFSETOF) {
			lex_next(cc);
			lex_expect_op(cc, OP_LPAR);
			n = nd_new(cc, N_OFFSETOF, line);
			n->ctype = parse_typename(cc);
			lex_expect_op(cc, OP_COMMA);
			n->name = expect_name(cc);
			lex_expect_op(cc, OP_RPAR);
			return fin(cc, n);
		}
		lex_syntax_error(cc);
	case TK_OP:
		if (t->op == OP_LPAR) {
			lex_next(cc);
			n = parse_expr(cc);
			lex_expect_op(cc, OP_RPAR);
			return fin(cc, n);
		}
		lex_syntax_error(cc);
	default:
		lex_syntax_error(cc);
	}
}

static struct node *postfix(struct cc *cc)
{
	struct node *n = primary(cc);
	for (;;) {
		int line = cc->tok.line;
		struct node *m;
		if (lex_is_op(cc, OP_LBRACK)) {
			lex_next(cc);
			m = nd_new(cc, N_OP2, line);
			m->op = OP_INDEX;
			m->l = n;
			m->args = arg_list(cc, OP_RBRACK);
			lex_expect_op(cc, OP_RBRACK);
			n = fin(cc, m);
		} else if (lex_is_op(cc, OP_LPAR)) {
			if (n->k != N_IDENT)
				cc_error(cc, cc->line, D_FUNC_IDENT,
					 "function designator is not of function type");
			lex_next(cc);
			m = nd_new(cc, N_FUNC, line);
			m->l = n;
			m->name = n->name;
			m->args = arg_list(cc, OP_RPAR);
			lex_expect_op(cc, OP_RPAR);
			n = fin(cc, m);
		} else if (lex_is_op(cc, OP_DOT) || lex_is_op(cc, OP_ARROW)) {
			int op = cc->tok.op;
			lex_next(cc);
			m = nd_new(cc, N_MEMBER, line);
			m->op = op;
			m->l = n;
			m->name = expect_name(cc);
			n = fin(cc, m);
		} else if (lex_is_op(cc, OP_INC) || lex_is_op(cc, OP_DEC)) {
			m = nd_new(cc, N_OP1, line);
			m->op = cc->tok.op == OP_INC ? OP_POSTINC : OP_POSTDEC;
			m->l = n;
			lex_next(cc);
			n = fin(cc, m);
		} else {
			return fin(cc, n);
		}
	}
}

static struct node *unary1(struct cc *cc)
{
	struct tok *t = &cc->tok;
	int line = t->line;
	struct node *n;

	if (t->k == TK_OP) {
		int op = 0;
		switch (t->op) {
		case OP_INC: op = OP_PREINC; break;
		case OP_DEC: op = OP_PREDEC; break;
		case OP_AMP: op = OP_ADDROF; break;
		case OP_STAR: op = OP_DEREF; break;
		case OP_PLUS: op = OP_POS; break;
		case OP_MINUS: op = OP_NEG; break;
		case OP_BNOT: op = OP_BNOT; break;
		case OP_LNOT: op = OP_LNOT; break;
		}
		if (op) {
			lex_next(cc);
			n = nd_new(cc, N_OP1, line);
			n->op = op;
			n->l = (op == OP_PREINC || op == OP_PREDEC) ? unary(cc) :
								      cast_expr(cc);
			return fin(cc, n);
		}
	}
	if (t->k == TK_KEYWORD && (t->kw == KW_SIZEOF || t->kw == KW_STRINGOF)) {
		int op = t->kw == KW_SIZEOF ? OP_SIZEOF : OP_STRINGOF;
		lex_next(cc);
		n = nd_new(cc, N_OP1, line);
		n->op = op;
		if (op == OP_SIZEOF && lex_is_op(cc, OP_LPAR)) {
			struct tok *pk = lex_peek(cc);
			if (pk->k == TK_TYPENAME || target_typedef(cc, pk) ||
			    (pk->k == TK_KEYWORD && pk->kw != KW_SELF &&
			     pk->kw != KW_THIS && pk->kw != KW_SIZEOF &&
			     pk->kw != KW_STRINGOF && pk->kw != KW_XLATE &&
			     pk->kw != KW_OFFSETOF)) {
				lex_next(cc);
				n->ctype = parse_typename(cc);
				lex_expect_op(cc, OP_RPAR);
				return fin(cc, n);
			}
		}
		n->l = unary(cc);
		return fin(cc, n);
	}
	return postfix(cc);
}

static struct node *unary(struct cc *cc)
{
	cc_nest_in(cc);
	struct node *n = unary1(cc);
	cc_nest_out(cc);
	return n;
}

static struct node *cast_expr1(struct cc *cc)
{
	if (lex_is_op(cc, OP_LPAR)) {
		struct tok *pk = lex_peek(cc);
		if (pk->k == TK_TYPENAME || target_typedef(cc, pk) ||
		    (pk->k == TK_KEYWORD && pk->kw != KW_SELF &&
		     pk->kw != KW_THIS && pk->kw != KW_SIZEOF &&
		     pk->kw != KW_STRINGOF && pk->kw != KW_XLATE &&
		     pk->kw != KW_OFFSETOF)) {
			int line = cc->tok.line;
			lex_next(cc);
			struct node *n = nd_new(cc, N_OP1, line);
			n->op = OP_CAST;
			n->ctype = parse_typename(cc);
			lex_expect_op(cc, OP_RPAR);
			n->l = cast_expr(cc);
			return n;
		}
	}
	return unary(cc);
}

static struct node *cast_expr(struct cc *cc)
{
	cc_nest_in(cc);
	struct node *n = cast_expr1(cc);
	cc_nest_out(cc);
	return n;
}

/* Binary operator precedence levels, lowest first. */
static int binprec(int op)
{
	switch (op) {
	case OP_LOR: return 1;
	case OP_LXOR: return 2;
	case OP_LAND: return 3;
	case OP_BOR: return 4;
	case OP_XOR: return 5;
	case OP_AMP: return 6;
	case OP_EQ: case OP_NE: return 7;
	case OP_LT: case OP_LE: case OP_GT: case OP_GE: return 8;
	case OP_SHL: case OP_SHR: return 9;
	case OP_PLUS: case OP_MINUS: return 10;
	case OP_STAR: case OP_SLASH: case OP_MOD: return 11;
	}
	return 0;
}

static struct node *binary(struct cc *cc, int minprec)
{
	struct node *l = cast_expr(cc);
	for (;;) {
		if (cc->tok.k != TK_OP)
			return l;
		int op = cc->tok.op, p = binprec(op);
		if (!p || p < minprec)
			return l;
		int line = cc->tok.line;
		lex_next(cc);
		struct node *n = nd_new(cc, N_OP2, line);
		n->op = op;
		n->l = l;
		n->r = binary(cc, p + 1);
		l = fin(cc, n);
	}
}

static struct node *cond_expr1(struct cc *cc)
{
	struct node *c = binary(cc, 1);
	if (!lex_is_op(cc, OP_QUESTION))
		return c;
	struct node *n = nd_new(cc, N_OP3, cc->tok.line);
	lex_next(cc);
	n->op = OP_COND;
	n->x = c;
	n->l = parse_expr(cc);
	lex_expect_op(cc, OP_COLON);
	n->r = cond_expr(cc);
	return fin(cc, n);
}

static struct node *cond_expr(struct cc *cc)
{
	cc_nest_in(cc);
	struct node *n = cond_expr1(cc);
	cc_nest_out(cc);
	return n;
}

static int is_assign_op(int op)
{
	return op == OP_ASSIGN || (op >= OP_ADD_EQ && op <= OP_SHR_EQ);
}

static struct node *assign_expr1(struct cc *cc)
{
	struct node *l = cond_expr(cc);
	if (cc->tok.k == TK_OP && is_assign_op(cc->tok.op)) {
		struct node *n = nd_new(cc, N_ASSIGN, cc->tok.line);
		n->op = cc->tok.op;
		lex_next(cc);
		n->l = l;
		n->r = assign_expr(cc);
		return fin(cc, n);
	}
	return l;
}

static struct node *assign_expr(struct cc *cc)
{
	cc_nest_in(cc);
	struct node *n = assign_expr1(cc);
	cc_nest_out(cc);
	return n;
}

struct node *parse_cond(struct cc *cc)
{
	return cond_expr(cc);
}

struct node *parse_expr(struct cc *cc)
{
	struct node *l = assign_expr(cc);
	while (lex_is_op(cc, OP_COMMA)) {
		struct node *n = nd_new(cc, N_OP2, cc->tok.line);
		n->op = OP_COMMA;
		lex_next(cc);
		n->l = l;
		n->r = assign_expr(cc);
		l = fin(cc, n);
	}
	return l;
}

static struct node *statements(struct cc *cc);

/* Nesting bound of if statements: the parser and the code generator
   recurse once per level. */
#define MT_IF_MAXDEPTH	256

static int at_kw(struct cc *cc, int kw)
{
	return cc->tok.k == TK_KEYWORD && cc->tok.kw == kw;
}

/*
 * D's statement_or_block (illumos/dtrace-utils grammar): a block, an empty
 * statement, an if statement or an expression with its ';'.  Returns the
 * statement list (NULL when empty).
 */
static struct node *if_statement(struct cc *cc);

static struct node *statement_or_block(struct cc *cc)
{
	if (lex_is_op(cc, OP_LBRACE))
		return statements(cc);
	if (lex_is_op(cc, OP_SEMI)) {
		lex_next(cc);
		return NULL;
	}
	if (at_kw(cc, KW_IF))
		return if_statement(cc);
	if (cc->tok.k == TK_EOF || (decl_starts(cc) && !at_kw(cc, KW_IF)))
		lex_syntax_error(cc);
	struct node *e = parse_expr(cc);
	if (!lex_is_op(cc, OP_SEMI))
		lex_syntax_error(cc);
	lex_next(cc);
	return e;
}

/* if ( expression ) statement_or_block [ else statement_or_block ] */
static struct node *if_statement(struct cc *cc)
{
	struct node *n = nd_new(cc, N_IF, cc->tok.line);

	if (++cc->if_depth > MT_IF_MAXDEPTH)
		cc_error(cc, cc->tok.line, D_SYNTAX,
			 "if statements nested too deeply (more than %d)",
			 MT_IF_MAXDEPTH);
	lex_next(cc);
	lex_expect_op(cc, OP_LPAR);
	n->l = parse_expr(cc);
	lex_expect_op(cc, OP_RPAR);
	n->r = statement_or_block(cc);
	if (at_kw(cc, KW_ELSE)) {
		lex_next(cc);
		n->x = statement_or_block(cc);
	}
	cc->if_depth--;
	return n;
}

/* { statement ... } ; the opening brace is the current token. */
static struct node *statements(struct cc *cc)
{
	struct node *head = NULL, **tail = &head;
	lex_expect_op(cc, OP_LBRACE);
	for (;;) {
		if (lex_is_op(cc, OP_RBRACE)) {
			lex_next(cc);
			return head;
		}
		if (lex_is_op(cc, OP_SEMI)) {
			lex_next(cc);
			continue;
		}
		if (cc->tok.k == TK_EOF)
			lex_syntax_error(cc);
		if (at_kw(cc, KW_IF)) {
			struct node *i = if_statement(cc);
			*tail = i;
			tail = &i->next;
			continue;
		}
		if (decl_starts(cc))
			lex_syntax_error(cc);	/* no declarations inside a clause */
		struct node *e = parse_expr(cc);
		*tail = e;
		tail = &e->next;
		if (lex_is_op(cc, OP_SEMI))
			lex_next(cc);
		else if (!lex_is_op(cc, OP_RBRACE))
			lex_syntax_error(cc);
	}
}

/*
 * The probe specifier just read, split into its fields as it is parsed
 * (dtrace's dt_node_pdesc_by_name), so an overspecified one is reported
 * in parse order.
 */
static void pspec_split(struct cc *cc, struct mt_pdesc *pd)
{
	pd->line = cc->tok.line;
	if (mt_pdesc_split(cc_strdup(cc, cc->tok.text), pd) > 4)
		cc_error(cc, pd->line, D_PDESC_INVAL,
			 "invalid probe description \"%s\": Overspecified probe description",
			 cc->tok.text);
}

static struct clause *clause(struct cc *cc)
{
	struct clause *c = cc_alloc(cc, sizeof(*c));
	int npd = 0, cap = 8, line = cc->tok.line;
	struct mt_pdesc *pds = cc_alloc(cc, cap * sizeof(*pds));

	for (;;) {
		lex_pspec(cc);
		if (npd == cap) {	/* -d's inline expansions: hundreds */
			struct mt_pdesc *v = cc_alloc(cc, 2 * cap * sizeof(*v));
			memcpy(v, pds, cap * sizeof(*v));
			pds = v;
			cap *= 2;
		}
		pspec_split(cc, &pds[npd]);
		npd++;
		lex_next(cc);
		if (!lex_is_op(cc, OP_COMMA))
			break;
		lex_next(cc);
		if (cc->tok.k == TK_EOF)
			lex_syntax_error(cc);
	}
	struct node *pred = NULL, *body = NULL;
	int has_body = 0;
	c->pds = pds;
	c->npd = npd;
	cc->parsing = c;
	if (lex_is_op(cc, OP_SLASH)) {
		cc->in_pred = 1;
		lex_next(cc);
		pred = parse_expr(cc);
		cc->in_pred = 0;
		if (!lex_is_op(cc, OP_EPRED))
			lex_syntax_error(cc);
		lex_next(cc);
		has_body = 1;
	}
	if (lex_is_op(cc, OP_LBRACE)) {
		body = statements(cc);
		has_body = 1;
	} else if (!has_body) {
		if (!cc->in->srcs[cc->srcidx].is_pspec)
			cc_error(cc, pds[npd - 1].line, D_SYNTAX,
				 "expected predicate and/or actions following probe description");
		if (cc->tok.k != TK_EOF)
			lex_syntax_error(cc);
	} else if (cc->tok.k != TK_EOF && !lex_at_pspec(cc) &&
		   !decl_starts(cc) && !lex_is_op(cc, OP_SEMI)) {
		lex_syntax_error(cc);
	}
	cc->parsing = NULL;
	c->npd = npd;
	c->pred = pred;
	c->body = body;
	c->line = line;
	c->src = cc->srcidx;
	return c;
}

/*
 * The clauses of the current source (after lex_init), in order, applying
 * the declarations and pragmas between them as they are read.
 */
struct clause *parse_source(struct cc *cc)
{
	struct clause *head = NULL, **tail = &head;
	lex_next(cc);
	if (cc->tok.k == TK_EOF && !(cc->in->opts && cc->in->opts->empty))
		cc_error(cc, cc->line, D_EMPTY, "empty D program translation unit");
	while (cc->tok.k != TK_EOF) {
		if (lex_is_op(cc, OP_SEMI)) {
			lex_next(cc);
			continue;
		}
		if (lex_is_op(cc, OP_RBRACE))
			cc_error(cc, cc->tok.line, D_SYNTAX,
				 "syntax error near \"}\"");
		if (decl_starts(cc) && !(cc->tok.end && *cc->tok.end == ':') &&
		    !cc->force_pspec) {
			if (!ctypes_skip_target_decl(cc))
				decl_toplevel(cc, 0);
			continue;
		}
		if (!lex_at_pspec(cc))
			lex_syntax_error(cc);
		*tail = clause(cc);
		tail = &(*tail)->next;
	}
	return head;
}
