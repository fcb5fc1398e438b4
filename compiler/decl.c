/*
 * Declarations: specifiers and declarators to types, struct/union/enum
 * definitions, typedefs, variable declarations (global, self->, this->,
 * associative), inlines and translators.  Applied as they are parsed.
 */
#include <string.h>
#include "cc.h"

int decl_starts(struct cc *cc)
{
	if (cc->tok.k == TK_TYPENAME)
		return 1;
	if (cc->tok.k != TK_KEYWORD)
		return 0;
	switch (cc->tok.kw) {
	case KW_SIZEOF: case KW_STRINGOF: case KW_XLATE: case KW_OFFSETOF:
		return 0;
	case KW_SELF: case KW_THIS: {
		struct tok *pk = lex_peek(cc);
		return !(pk->k == TK_OP && pk->op == OP_ARROW);
	}
	}
	return 1;
}

static struct type *struct_body(struct cc *cc, struct type *t);
static struct type *enum_body(struct cc *cc, struct type *t);

/* struct/union/enum [tag] [{ ... }] */
static struct type *sou_spec(struct cc *cc, int kw, int *defined)
{
	const char *kind = kw == KW_STRUCT ? "struct" : kw == KW_UNION ? "union" : "enum";
	char *tag = NULL;
	lex_next(cc);
	if (cc->tok.k == TK_IDENT || cc->tok.k == TK_TYPENAME) {
		tag = cc->tok.text;
		lex_next(cc);
	}
	struct type *t = NULL;
	char *name = tag ? cc_printf(cc, "%s %s", kind, tag) : NULL;
	if (name)
		t = ty_lookup(cc, name);
	if (lex_is_op(cc, OP_LBRACE)) {
		cc->brace_line = cc->tok.line;
		if (t && t->complete)
			cc_error(cc, cc->tok.line, D_DECL_TYPERED, "type redeclared: %s", name);
		if (!t) {
			t = ty_new(cc, kw == KW_STRUCT ? T_STRUCT :
				   kw == KW_UNION ? T_UNION : T_ENUM, 0,
				   name ? name : cc_printf(cc, "%s ", kind));
			t->tag = tag ? tag : cc_printf(cc, "<anon%p>", (void *)t);
			t->complete = 0;
			if (name)
				ty_define(cc, name, t);
		}
		*defined = 1;
		cc_nest_in(cc);		/* struct bodies nest */
		t = kw == KW_ENUM ? enum_body(cc, t) : struct_body(cc, t);
		cc_nest_out(cc);
		return t;
	}
	if (!tag)
		lex_syntax_error(cc);
	if (!t) {
		t = ty_new(cc, kw == KW_STRUCT ? T_STRUCT : kw == KW_UNION ?
			   T_UNION : T_ENUM, 0, name);
		t->tag = tag;
		t->complete = 0;
		t->from_target = cc->c_layout > 0;
		if (kw == KW_ENUM) {
			t->size = 4;
			t->align = 4;
			t->is_signed = 1;
		}
		ty_define(cc, name, t);
		*defined = 1;
	}
	return t;
}

enum { DA_SIGNED = 1, DA_UNSIGNED = 2, DA_SHORT = 4, DA_LONG = 8,
       DA_LONGLONG = 16, DA_CONST = 32, DA_VOLATILE = 64 };

void decl_specs(struct cc *cc, struct declspec *ds, int allow_storage)
{
	int attr = 0, defined = 0, errline = 0;
	const char *base = NULL;
	struct type *t = NULL;

	memset(ds, 0, sizeof(*ds));
	ds->line = cc->tok.line;
	for (;;) {
		struct tok *k = &cc->tok;
		/*
		 * A typedef name after signed/unsigned is still a type, as in
		 * dtrace's lexer (no type named yet): dt_decl_check refuses it.
		 */
		if (k->k == TK_TYPENAME && !base && !t &&
		    !(attr & (DA_SHORT | DA_LONG | DA_LONGLONG))) {
			t = ty_lookup(cc, k->text);
			base = k->text;
			lex_next(cc);
			continue;
		}
		if (k->k != TK_KEYWORD)
			break;
		switch (k->kw) {
		case KW_TYPEDEF: case KW_EXTERN: case KW_STATIC:
			if (ds->storage)
				cc_error(cc, k->line, D_DECL_COMBO,
					 "invalid type combination");
			ds->storage = k->kw;
			break;
		case KW_REGISTER: case KW_AUTO:
			cc_error(cc, k->line, D_DECL_BADCLASS,
				 "specified storage class not appropriate in D");
		case KW_SELF: case KW_THIS:
			if (ds->scope)
				cc_error(cc, k->line, D_DECL_CLASS,
					 "invalid storage class combination");
			ds->scope = k->kw == KW_SELF ? 1 : 2;
			break;
		case KW_CONST: attr |= DA_CONST; break;
		case KW_VOLATILE: case KW_RESTRICT: case KW_USERLAND:
			attr |= DA_VOLATILE;
			break;
		case KW_SIGNED: case KW_UNSIGNED:
			if (attr & (DA_SIGNED | DA_UNSIGNED))
				cc_error(cc, k->line, D_DECL_COMBO,
					 "invalid type combination");
			attr |= k->kw == KW_SIGNED ? DA_SIGNED : DA_UNSIGNED;
			break;
		case KW_SHORT:
			attr |= DA_SHORT;
			break;
		case KW_LONG:
			if (attr & DA_LONGLONG)
				cc_error(cc, k->line, D_DECL_COMBO,
					 "invalid type combination");
			if (attr & DA_LONG)
				attr = (attr & ~DA_LONG) | DA_LONGLONG;
			else
				attr |= DA_LONG;
			break;
		case KW_CHAR: case KW_INT: case KW_FLOAT: case KW_DOUBLE:
		case KW_VOID: case KW_STRING:
			if (base || t)
				cc_error(cc, k->line, D_DECL_COMBO,
					 "invalid type combination");
			base = kw_name(k->kw);
			break;
		case KW_STRUCT: case KW_UNION: case KW_ENUM:
			if (base || t)
				cc_error(cc, k->line, D_DECL_COMBO,
					 "invalid type combination");
			cc->brace_line = 0;
			t = sou_spec(cc, k->kw, &defined);
			base = t->name;
			if (cc->brace_line)
				errline = cc->brace_line;
			continue;
		default:
			goto done;
		}
		lex_next(cc);
	}
done:
	if (!base && !t && !attr && !ds->storage && !ds->scope)
		lex_syntax_error(cc);
	if (base && (attr & (DA_SHORT | DA_LONG | DA_LONGLONG)) &&
	    strcmp(base, "char") == 0)
		cc_error(cc, (errline ? errline : cc->tok.line), D_DECL_CHARATTR,
			 "invalid type declaration: short and long may not be used with char type");
	if (base && strcmp(base, "void") == 0 &&
	    (attr & (DA_SIGNED | DA_UNSIGNED | DA_SHORT | DA_LONG | DA_LONGLONG)))
		cc_error(cc, (errline ? errline : cc->tok.line), D_DECL_VOIDATTR,
			 "invalid type declaration: attributes may not be used with void type");
	if ((attr & (DA_LONG | DA_LONGLONG)) && base &&
	    strcmp(base, "int") && strcmp(base, "double") && strcmp(base, "float"))
		cc_error(cc, (errline ? errline : cc->tok.line), D_DECL_LONGINT,
			 "invalid type declaration: long and long long may only be used with integer or floating-point type");
	if ((attr & DA_SHORT) && (attr & (DA_LONG | DA_LONGLONG)))
		cc_error(cc, (errline ? errline : cc->tok.line), D_UNKNOWN,
			 "failed to resolve type %s%s%s%s%s%s: Unknown type name",
			 attr & DA_SIGNED ? "signed " : "",
			 attr & DA_UNSIGNED ? "unsigned " : "",
			 attr & DA_SHORT ? "short " : "",
			 attr & DA_LONG ? "long " : "",
			 attr & DA_LONGLONG ? "long long " : "", base ? base : "");
	if (!t) {
		if (!base && !(attr & (DA_SIGNED | DA_UNSIGNED | DA_SHORT | DA_LONG | DA_LONGLONG)))
			base = "int";	/* "extern x;" */
		if (!base || strcmp(base, "int") == 0) {
			const char *sz = attr & DA_SHORT ? "short" :
					 attr & DA_LONG ? "long" :
					 attr & DA_LONGLONG ? "long long" : "int";
			base = cc_printf(cc, "%s%s", attr & DA_UNSIGNED ? "unsigned " : "", sz);
		} else if (strcmp(base, "char") == 0) {
			if (attr & DA_UNSIGNED)
				base = "unsigned char";
			else if (attr & DA_SIGNED)
				base = "signed char";
		} else if (strcmp(base, "double") == 0 && (attr & DA_LONG)) {
			base = "long double";
		} else if (attr & (DA_SIGNED | DA_UNSIGNED)) {
			cc_error(cc, (errline ? errline : cc->tok.line), D_DECL_SIGNINT,
				 "invalid type declaration: signed and unsigned may only be used with integer type");
		}
		t = ty_lookup(cc, base);
		if (!t)
			cc_error(cc, (errline ? errline : cc->tok.line), D_UNKNOWN,
				 "failed to resolve type %s: Unknown type name", base);
	} else if (attr & (DA_SIGNED | DA_UNSIGNED)) {
		cc_error(cc, (errline ? errline : cc->tok.line), D_DECL_SIGNINT,
			 "invalid type declaration: signed and unsigned may only be used with integer type");
	} else if (attr & (DA_SHORT | DA_LONG | DA_LONGLONG)) {
		cc_error(cc, (errline ? errline : cc->tok.line), D_DECL_COMBO, "invalid type combination");
	}
	ds->type = t;
	ds->is_inline = defined;	/* reused: a tag was defined here */
	if (!allow_storage && ds->storage)
		lex_syntax_error(cc);
}

/* Declarator operations, applied to the base type in order. */
struct dop {
	int kind;			/* 1 pointer, 2 array, 3 function */
	uint32_t n;
};

/* A function's parameter list, checked and discarded. */
static void func_params(struct cc *cc)
{
	int n = 0, has_void = 0;
	lex_next(cc);
	while (!lex_is_op(cc, OP_RPAR)) {
		if (lex_is_op(cc, OP_ELLIPSIS)) {
			lex_next(cc);
			break;
		}
		struct declspec ds;
		char *pname = NULL;
		struct node *keys = NULL;
		int line = cc->tok.line;
		decl_specs(cc, &ds, 1);
		if (ds.storage && ds.storage != KW_TYPEDEF)
			cc_error(cc, line, D_DECL_PARMCLASS,
				 "inappropriate storage class for function or associative array parameter");
		struct type *t = decl_declarator(cc, ds.type, &pname, 2, &keys);
		n++;
		if (ty_is_void(t)) {
			if (pname)
				cc_error(cc, line, D_DECL_PROTO_NAME,
					 "void parameter may not have a name: %s", pname);
			has_void = 1;
		}
		if (keys)
			cc_error(cc, line, D_DECL_PROTO_TYPE,
				 "function prototype may not use parameter of type dynamic variable: %s, parameter #%d",
				 pname ? pname : "(anonymous)", n);
		if (!lex_is_op(cc, OP_COMMA))
			break;
		lex_next(cc);
	}
	if (has_void && n > 1)
		cc_error(cc, cc->tok.line, D_DECL_PROTO_VOID, "void must be sole parameter");
	lex_expect_op(cc, OP_RPAR);
}

static int parse_dops1(struct cc *cc, struct dop *ops, int max, char **name,
		       int abstract, struct node **keys, int depth);

static int parse_dops(struct cc *cc, struct dop *ops, int max, char **name,
		      int abstract, struct node **keys, int depth)
{
	cc_nest_in(cc);
	int n = parse_dops1(cc, ops, max, name, abstract, keys, depth);
	cc_nest_out(cc);
	return n;
}

static int parse_dops1(struct cc *cc, struct dop *ops, int max, char **name,
		       int abstract, struct node **keys, int depth)
{
	struct dop inner[16], suf[16];
	int np = 0, ni = 0, ns = 0, n = 0;

	while (lex_is_op(cc, OP_STAR)) {
		np++;
		lex_next(cc);
		while (cc->tok.k == TK_KEYWORD &&
		       (cc->tok.kw == KW_CONST || cc->tok.kw == KW_VOLATILE ||
			cc->tok.kw == KW_RESTRICT))
			lex_next(cc);
	}
	if (lex_is_op(cc, OP_LPAR)) {
		struct tok *pk = lex_peek(cc);
		/* a named declarator's '(' always opens an inner declarator */
		if (!abstract || (pk->k == TK_OP && (pk->op == OP_STAR ||
						     pk->op == OP_LPAR ||
						     pk->op == OP_LBRACK))) {
			lex_next(cc);
			ni = parse_dops(cc, inner, 16, name, abstract, keys, depth + 1);
			lex_expect_op(cc, OP_RPAR);
		}
	} else if (cc->tok.k == TK_IDENT || cc->tok.k == TK_TYPENAME ||
		   cc->tok.k == TK_BACKQUOTE) {
		if (abstract == 1)
			lex_syntax_error(cc);
		if (cc->tok.k == TK_BACKQUOTE) {
			lex_next(cc);
			if (cc->tok.k != TK_IDENT && cc->tok.k != TK_TYPENAME)
				lex_syntax_error(cc);
			cc_error(cc, cc->tok.line, D_DECL_SCOPE,
				 "D scoping operator may not be used in a declaration name (`%s)",
				 cc->tok.text);
		}
		if (strchr(cc->tok.text, '`'))
			cc_error(cc, cc->tok.line, D_DECL_SCOPE,
				 "D scoping operator may not be used in a declaration name (%s)",
				 cc->tok.text);
		int was_type = cc->tok.k == TK_TYPENAME;
		*name = cc->tok.text;
		lex_next(cc);
		/* dtrace's dt_decl_spec: a type name after a complete type is
		   the declarator's identifier, and a second one is refused */
		if (was_type &&
		    (cc->tok.k == TK_IDENT || cc->tok.k == TK_TYPENAME))
			cc_error(cc, cc->tok.line, D_DECL_IDENT,
				 "old-style declaration or incorrect type specified");
	} else if (!abstract) {
		lex_syntax_error(cc);
	}
	for (;;) {
		if (lex_is_op(cc, OP_LBRACK)) {
			int line = cc->tok.line;
			lex_next(cc);
			if (lex_is_op(cc, OP_RBRACK)) {
				lex_next(cc);
				if (ns < 16)
					suf[ns++] = (struct dop){2, 0};
				continue;
			}
			if (lex_is_op(cc, OP_ELLIPSIS))
				cc_error(cc, line, D_DECL_PROTO_VARARGS,
					 "array prototype may not use a variable-length argument list");
			if (parse_at_type(cc) && (ns > 0 || (keys && *keys)))
				cc_error(cc, line, D_DECL_DYNOBJ,
					 "cannot declare array of associative arrays");
			if (parse_at_type(cc) && keys && depth == 0 && ns == 0) {
				/* associative array signature */
				struct node *head = NULL, **tail = &head;
				for (;;) {
					struct node *k = nd_new(cc, N_TYPE, cc->tok.line);
					k->ctype = parse_typename(cc);
					*tail = k;
					tail = &k->next;
					if (!lex_is_op(cc, OP_COMMA))
						break;
					lex_next(cc);
				}
				lex_expect_op(cc, OP_RBRACK);
				*keys = head;
				continue;
			}
			struct node *e = parse_cond(cc);
			sema_expr(cc, e);
			if (!e->is_const || !ty_is_integral(e->type) || e->cval <= 0)
				cc_error(cc, line, D_DECL_ARRSUB,
					 "positive integral constant expression or tuple signature expected as array declaration subscript");
			if (e->cval > 0x7fffffff)
				cc_error(cc, line, D_DECL_ARRBIG, "array dimension too big");
			lex_expect_op(cc, OP_RBRACK);
			if (ns < 16)
				suf[ns++] = (struct dop){2, (uint32_t)e->cval};
		} else if (lex_is_op(cc, OP_LPAR)) {
			func_params(cc);
			if (ns < 16)
				suf[ns++] = (struct dop){3, 0};
		} else {
			break;
		}
	}
	for (int i = 0; i < np && n < max; i++)
		ops[n++] = (struct dop){1, 0};
	for (int i = ns - 1; i >= 0 && n < max; i--)
		ops[n++] = suf[i];
	for (int i = 0; i < ni && n < max; i++)
		ops[n++] = inner[i];
	return n;
}

struct type *decl_declarator(struct cc *cc, struct type *base, char **name,
			     int abstract, struct node **keys)
{
	struct dop ops[32];
	int n = parse_dops(cc, ops, 32, name, abstract, keys, 0);
	if (!abstract && !*name)
		lex_syntax_error(cc);
	struct type *t = base;
	for (int i = 0; i < n; i++) {
		if (ops[i].kind == 1) {
			t = ty_ptr(cc, t);
		} else if (ops[i].kind == 2) {
			t = ty_array(cc, t, ops[i].n);
		} else {
			struct type *f = ty_new(cc, T_FUNC, 0, NULL);
			f->base = t;
			f->name = ty_decl_name(cc, f, "");
			t = f;
		}
	}
	return t;
}

/* the smallest power of two >= n */
static uint32_t clp2(uint32_t n)
{
	uint32_t p = 1;
	while (p < n)
		p <<= 1;
	return p;
}

/*
 * Place member m (msize bytes, aligned to malign) the way dtrace's CTF
 * library does for types declared in D: a struct member starts at the
 * first byte after the end of the previous member (its last bit, for a
 * bit-field), rounded up to malign; the struct ends right after its last
 * member, without trailing padding.  *endbits tracks that end in bits.
 */
static void d_place(struct member *m, int is_union, int first, uint32_t msize,
		    uint32_t malign, uint64_t *endbits, uint64_t *size)
{
	uint64_t off = 0;
	if (!is_union && !first) {
		off = (*endbits + 7) / 8;
		off = (off + malign - 1) / malign * malign;
	}
	m->off = (uint32_t)off;
	*endbits = off * 8 + (m->bits ? m->bits : (uint64_t)msize * 8);
	if (is_union)
		*size = msize > *size ? msize : *size;
	else
		*size = off + msize;
}

/*
 * A struct/union body.  Two layouts: the target's C types (c_layout) keep
 * the C ABI (bit-fields packed into units of their declared type, size
 * rounded up to the alignment), so offsets are the kernel's.  Types
 * declared in D follow dtrace: a bit-field is an integer of the smallest
 * power-of-two byte size holding its width, aligned to that size, and
 * placed by d_place(); an unnamed :0 bit-field is ignored.  Thus
 * struct { int a:1; int b:3; } has size 2 and struct { int a; char b; } 5.
 */
static struct type *struct_body(struct cc *cc, struct type *t)
{
	uint64_t bitpos = 0, maxsize = 0, dend = 0, dsize = 0;
	uint32_t maxalign = 1;
	int c_abi = cc->c_layout > 0 || cc->c_layout_pragma, first = 1;
	struct member *head = NULL, **tail = &head;
	int is_union = t->kind == T_UNION;

	lex_expect_op(cc, OP_LBRACE);
	if (lex_is_op(cc, OP_RBRACE))
		lex_syntax_error(cc);	/* an empty body */
	while (!lex_is_op(cc, OP_RBRACE)) {
		struct declspec ds;
		decl_specs(cc, &ds, 0);
		for (;;) {
			char *name = NULL;
			int line = cc->tok.line;
			struct type *mt = ds.type;
			if (!lex_is_op(cc, OP_COLON))
				mt = decl_declarator(cc, ds.type, &name, 2, NULL);
			/* only a struct or union may go unnamed (C11's
			   anonymous members); dtrace's grammar wants a name */
			if (!name && !lex_is_op(cc, OP_COLON) &&
			    TY_K(mt) != T_STRUCT && TY_K(mt) != T_UNION)
				lex_syntax_error(cc);
			if (ty_is_void(mt) || TY_K(mt) == T_FUNC)
				cc_error(cc, cc->line, D_DECL_VOIDOBJ,
					 "cannot have void member: %s", name ? name : "");
			if (TY_K(mt) == T_STRUCT || TY_K(mt) == T_UNION ||
			    TY_K(mt) == T_ENUM) {
				if (!mt->canon->complete)
					cc_error(cc, line, D_DECL_INCOMPLETE,
						 "incomplete struct/union/enum %s: %s",
						 mt->name, name ? name : "");
			}
			struct member *m = cc_alloc(cc, sizeof(*m));
			m->name = name ? name : "";
			m->type = mt;
			m->line = line;
			if (name)
				for (struct member *o = head; o; o = o->next)
					if (o->name && strcmp(o->name, name) == 0)
						cc_error(cc, cc->line, D_UNKNOWN,
							 "failed to define member '%s': Duplicate member or variable name",
							 name);
			if (lex_is_op(cc, OP_COLON)) {
				lex_next(cc);
				struct node *e = parse_expr(cc);
				sema_expr(cc, e);
				if (!e->is_const || !ty_is_integral(e->type) || e->cval < 0)
					cc_error(cc, line, D_DECL_BFCONST,
						 "positive integral constant expression expected as bit-field size");
				if (e->cval == 0 && name)
					cc_error(cc, line, D_DECL_BFCONST,
						 "positive integral constant expression expected as bit-field size");
				/* dtrace: an integer; C types laid out as
				   C (c_abi) may have enum bit-fields */
				if (!ty_is_integral(mt) ||
				    (TY_K(mt) == T_ENUM && !c_abi))
					cc_error(cc, line, D_DECL_BFTYPE,
						 "invalid type for bit-field: %s",
						 name ? name : "");
				if ((uint64_t)e->cval > mt->size * 8)
					cc_error(cc, line, D_DECL_BFSIZE,
						 "bit-field too big for type: %s",
						 name ? name : "");
				uint32_t w = (uint32_t)e->cval, unit = mt->size * 8;
				if (!c_abi) {
					if (w == 0)
						goto next;
					m->bits = (uint8_t)w;
					m->usize = (uint8_t)clp2((w + 7) / 8);
					d_place(m, is_union, first, m->usize,
						m->usize, &dend, &dsize);
					if (m->usize > maxalign)
						maxalign = m->usize;
					goto placed;
				}
				if (is_union)
					bitpos = 0;
				if (w == 0) {
					bitpos = (bitpos + unit - 1) / unit * unit;
					goto next;
				}
				if (bitpos / unit != (bitpos + w - 1) / unit)
					bitpos = (bitpos + unit - 1) / unit * unit;
				m->off = (uint32_t)(bitpos / unit * mt->size);
				m->bitoff = (uint8_t)(bitpos % unit);
				m->bits = (uint8_t)w;
				bitpos += w;
				if (mt->align > maxalign)
					maxalign = mt->align;
				if (is_union && (bitpos + 7) / 8 > maxsize)
					maxsize = (bitpos + 7) / 8;
			} else if (!c_abi) {
				uint32_t al = mt->align ? mt->align : 1;
				d_place(m, is_union, first, mt->size, al, &dend,
					&dsize);
				if (al > maxalign)
					maxalign = al;
			} else {
				uint32_t al = mt->align ? mt->align : 1;
				if (is_union)
					bitpos = 0;
				bitpos = (bitpos + al * 8 - 1) / (al * 8) * (al * 8);
				m->off = (uint32_t)(bitpos / 8);
				bitpos += (uint64_t)mt->size * 8;
				if (al > maxalign)
					maxalign = al;
				if (is_union && mt->size > maxsize)
					maxsize = mt->size;
			}
placed:
			first = 0;
			*tail = m;
			tail = &m->next;
next:
			if (!lex_is_op(cc, OP_COMMA))
				break;
			lex_next(cc);
		}
		lex_expect_op(cc, OP_SEMI);
	}
	lex_next(cc);
	uint64_t size = is_union ? maxsize : (bitpos + 7) / 8;
	size = (size + maxalign - 1) / maxalign * maxalign;
	if (!c_abi)
		size = dsize;
	t->members = head;
	t->size = (uint32_t)size;
	t->align = maxalign;
	t->complete = 1;
	t->from_target = cc->c_layout > 0;
	return t;
}

static struct type *enum_body(struct cc *cc, struct type *t)
{
	int64_t v = 0;
	struct enumc *head = NULL, **tail = &head;

	t->size = 4;
	t->align = 4;
	t->is_signed = 1;
	lex_expect_op(cc, OP_LBRACE);
	if (lex_is_op(cc, OP_RBRACE))
		lex_syntax_error(cc);	/* an empty body */
	while (!lex_is_op(cc, OP_RBRACE)) {
		if (cc->tok.k != TK_IDENT)
			lex_syntax_error(cc);
		char *name = cc->tok.text;
		int line = cc->tok.line;
		lex_next(cc);
		if (lex_is_op(cc, OP_ASSIGN)) {
			lex_next(cc);
			struct node *e = parse_cond(cc);
			sema_expr(cc, e);
			line = cc->line;
			if (!e->is_const || !ty_is_integral(e->type))
				cc_error(cc, line, D_DECL_ENCONST,
					 "enumerator '%s' must be assigned to an integral constant expression",
					 name);
			v = e->cval;
		}
		if (v > 2147483647LL || v < -2147483648LL)
			cc_error(cc, line, D_DECL_ENOFLOW,
				 "enumerator '%s' value overflows INT_MAX (2147483647)",
				 name);
		struct ident *o = id_lookup(&cc->globals, name);
		if (o && o->k == ID_ENUMC && o->type == t)
			cc_error(cc, cc->line, D_UNKNOWN,
				 "failed to define enumerator '%s': Duplicate member or variable name",
				 name);
		/* a target's (C) enumerator leaves a D identifier of its
		   name alone, as dtrace does for a module's enums */
		if (o && cc->c_layout <= 0)
			cc_error(cc, line, D_DECL_IDRED,
				 "identifier redeclared: %s", name);
		if (!o) {
			struct ident *id = id_add(cc, &cc->globals, name,
						  ID_ENUMC);
			id->type = t;
			id->val = v;
		}
		struct enumc *ec = cc_alloc(cc, sizeof(*ec));
		ec->name = name;
		ec->val = v;
		*tail = ec;
		tail = &ec->next;
		v++;
		if (lex_is_op(cc, OP_COMMA))
			lex_next(cc);
		else if (!lex_is_op(cc, OP_RBRACE))
			lex_syntax_error(cc);
	}
	lex_next(cc);
	t->enums = head;
	t->complete = 1;
	t->from_target = cc->c_layout > 0;
	return t;
}

static const char *id_kind_desc(struct ident *id)
{
	switch (id->k) {
	case ID_SUBR: case ID_ACTF: case ID_AGGF: return "function ";
	case ID_INLINE: return "scalar inline";
	case ID_ENUMC: return "enumerator";
	default: return "variable";
	}
}

/*
 * inline TYPE NAME = expr;  or the parameterized  inline TYPE NAME[T1 a, T2 b]
 * = expr;  whose parameters are names in expr, bound at each NAME[x, y].
 */
static void inline_decl(struct cc *cc)
{
	struct declspec ds;
	char *name = NULL;
	int line = cc->tok.line;
	struct ident *params[16];
	int np = 0;

	lex_next(cc);
	decl_specs(cc, &ds, 0);
	struct type *t = ds.type;
	while (lex_is_op(cc, OP_STAR)) {
		t = ty_ptr(cc, t);
		lex_next(cc);
	}
	if (cc->tok.k != TK_IDENT && cc->tok.k != TK_TYPENAME)
		lex_syntax_error(cc);
	name = cc->tok.text;
	lex_next(cc);
	struct ident *o = id_lookup(&cc->globals, name);
	/* a D library may give a built-in variable its typed definition
	   (mach.d's curcpu is a cpuinfo_t *, as in dtrace) */
	if (o && !(cc->lib && o->k == ID_BVAR))
		cc_error(cc, line, D_DECL_IDRED,
			 "identifier redefined: %s\n\t current: inline definition\n\tprevious: %s",
			 name, id_kind_desc(o));
	if (lex_is_op(cc, OP_LBRACK)) {
		lex_next(cc);
		while (!lex_is_op(cc, OP_RBRACK)) {
			struct declspec pds;
			char *pname = NULL;
			decl_specs(cc, &pds, 0);
			struct type *pt = decl_declarator(cc, pds.type, &pname, 2, NULL);
			if (!pname || np == 16)
				lex_syntax_error(cc);
			struct ident *pi = id_add(cc, &cc->globals, pname, ID_INLINE);
			pi->type = pt;
			pi->param = np + 1;
			params[np++] = pi;
			if (!lex_is_op(cc, OP_COMMA))
				break;
			lex_next(cc);
		}
		lex_expect_op(cc, OP_RBRACK);
	}
	lex_expect_op(cc, OP_ASSIGN);
	struct node *e = parse_expr(cc);
	sema_expr(cc, e);
	/* the parameters are only visible in the definition */
	for (int i = 0; i < np; i++)
		id_remove(&cc->globals, params[i]);
	struct ident *id = id_add(cc, &cc->globals, name, ID_INLINE);
	id->type = t;
	id->init = e;
	id->line = line;
	if (np) {
		id->nkeys = np;
		id->params = cc_alloc(cc, np * sizeof(*id->params));
		id->ktypes = cc_alloc(cc, np * sizeof(*id->ktypes));
		for (int i = 0; i < np; i++) {
			id->params[i] = params[i];
			id->ktypes[i] = params[i]->type;
		}
	}
	if (!ty_compat(t, e->type) && !(ty_is_ptrlike(t) && e->is_const && e->cval == 0))
		cc_error(cc, cc->line, D_OP_INCOMPAT,
			 "inline %s definition uses incompatible types: \"%s\" = \"%s\"",
			 name, t->name, e->type->name);
	lex_expect_op(cc, OP_SEMI);
}

static void translator_decl(struct cc *cc)
{
	struct declspec ds;
	char *name = NULL;
	int line = cc->tok.line;
	lex_next(cc);
	decl_specs(cc, &ds, 0);
	struct type *out = decl_declarator(cc, ds.type, &name, 1, NULL);
	lex_expect_op(cc, OP_LT);
	decl_specs(cc, &ds, 0);
	struct type *in = decl_declarator(cc, ds.type, &name, 0, NULL);
	lex_expect_op(cc, OP_GT);
	struct xlator *xl = cc_alloc(cc, sizeof(*xl));
	xl->out = out;
	xl->in = in;
	xl->argname = name;
	xl->line = line;
	/* the argument is an identifier while the members are cooked */
	struct ident *arg = id_add(cc, &cc->globals, name, ID_INLINE);
	arg->type = in;
	arg->init = NULL;
	arg->val = 1;		/* marks a translator argument */
	lex_expect_op(cc, OP_LBRACE);
	struct xlmember **tail = &xl->members;
	while (!lex_is_op(cc, OP_RBRACE)) {
		if (cc->tok.k != TK_IDENT && cc->tok.k != TK_TYPENAME)
			lex_syntax_error(cc);
		struct xlmember *xm = cc_alloc(cc, sizeof(*xm));
		xm->name = cc->tok.text;
		lex_next(cc);
		lex_expect_op(cc, OP_ASSIGN);
		xm->expr = parse_expr(cc);
		lex_expect_op(cc, OP_SEMI);
		*tail = xm;
		tail = &xm->next;
	}
	lex_next(cc);
	line = cc->line;
	/* dtrace's order: a redeclaration, then the output type's kind */
	for (struct xlator *x = cc->xlators; x; x = x->next)
		if (ty_same(x->out, out) && ty_same(x->in, in))
			cc_error(cc, line, D_XLATE_REDECL,
				 "translator from %s to %s has already been declared",
				 in->name, out->name);
	if (ty_is_sou(out) && !out->canon->complete)
		cc_error(cc, line, D_XLATE_SOU,
			 "incomplete struct/union/enum %s", out->name);
	if (!ty_is_sou(out))
		cc_error(cc, line, D_XLATE_SOU,
			 "translator output type must be a struct or union");
	for (struct xlmember *xm = xl->members; xm; xm = xm->next) {
		struct member *m = ty_member(cc, out, xm->name);
		if (!m)
			cc_error(cc, line, D_XLATE_MEMB,
				 "translator member %s is not a member of %s",
				 xm->name, out->name);
		sema_expr(cc, xm->expr);
		struct node *e = xm->expr;
		if (!ty_compat(m->type, e->type) &&
		    !(ty_is_string(e->type) && ty_is_ptrlike(m->type)))
			cc_error(cc, line, D_XLATE_INCOMPAT,
				 "translator member %s definition uses incompatible types: \"%s\" = \"%s\"",
				 xm->name, m->type->name, e->type->name);
	}
	lex_expect_op(cc, OP_SEMI);
	/* hide the argument again */
	id_remove(&cc->globals, arg);
	xl->next = cc->xlators;
	cc->xlators = xl;
}

static void provider_decl(struct cc *cc)
{
	int d = 0;
	lex_next(cc);
	while (cc->tok.k != TK_EOF) {
		if (lex_is_op(cc, OP_LBRACE))
			d++;
		else if (lex_is_op(cc, OP_RBRACE) && --d == 0) {
			lex_next(cc);
			break;
		}
		lex_next(cc);
	}
	if (lex_is_op(cc, OP_SEMI))
		lex_next(cc);
}

static void var_decl(struct cc *cc, struct declspec *ds, struct type *t,
		     const char *name, struct node *keys, int line)
{
	struct scope *s = ds->scope == 1 ? &cc->tls : ds->scope == 2 ?
			  &cc->locals : &cc->globals;
	if (ty_is_void(t))
		cc_error(cc, line, D_DECL_VOIDOBJ,
			 "cannot have void object: %s", name);
	if ((ty_is_sou(t) || TY_K(t) == T_ENUM) && !t->canon->complete)
		cc_error(cc, line, D_DECL_INCOMPLETE,
			 "incomplete struct/union/enum %s: %s", t->name, name);
	if (keys && ds->scope == 2)
		cc_error(cc, line, D_DECL_LOCASSC,
			 "associative arrays may not be declared as local variables: %s",
			 name);
	if (TY_K(t) == T_ARRAY && t->canon->nelems == 0 && !keys)
		cc_error(cc, line, D_DECL_ARRNULL,
			 "array declaration requires array dimension or tuple signature: %s",
			 name);
	struct ident *o = id_lookup(s, name);
	if (o && ds->scope == 0 && o->k != ID_VAR)
		cc_error(cc, line, D_DECL_IDRED, "identifier redeclared: %s", name);
	if (o && o->k == ID_VAR) {
		if (o->type && !ty_same(o->type, t))
			cc_error(cc, line, D_DECL_IDRED,
				 "identifier redeclared: %s", name);
		return;
	}
	struct ident *id = id_add(cc, s, name, ID_VAR);
	id->scope = ds->scope;
	id->type = t;
	id->declared = 1;
	id->line = line;
	id->is_assoc = keys != NULL;
	if (keys) {
		int n = 0;
		for (struct node *k = keys; k; k = k->next)
			n++;
		id->ktypes = cc_alloc(cc, n * sizeof(*id->ktypes));
		n = 0;
		for (struct node *k = keys; k; k = k->next) {
			if (ty_is_void(k->ctype))
				cc_error(cc, line, D_DECL_PROTO_TYPE,
					 "array prototype may not use parameter of type void: (anonymous), parameter #%d",
					 n + 1);
			id->ktypes[n++] = k->ctype;
		}
		id->nkeys = n;
	}
}

/* A declaration at the top level (or "self"/"this" declarations). */
void decl_toplevel(struct cc *cc, int in_clause)
{
	struct declspec ds;
	int line = cc->tok.line;

	if (cc->tok.k == TK_KEYWORD) {
		if (cc->tok.kw == KW_INLINE) {
			inline_decl(cc);
			return;
		}
		if (cc->tok.kw == KW_TRANSLATOR) {
			translator_decl(cc);
			return;
		}
		if (cc->tok.kw == KW_PROVIDER) {
			provider_decl(cc);
			return;
		}
	}
	decl_specs(cc, &ds, 1);
	if (lex_is_op(cc, OP_SEMI)) {
		if (!ds.is_inline)
			cc_error(cc, line, D_DECL_USELESS, "useless declaration");
		lex_next(cc);
		return;
	}
	for (;;) {
		char *name = NULL;
		struct node *keys = NULL;
		int dline = cc->tok.line;
		struct type *t = decl_declarator(cc, ds.type, &name, 0, &keys);
		if (ds.storage == KW_TYPEDEF) {
			struct type *o = ty_lookup(cc, name);
			if (!cc->c_layout && id_lookup(&cc->globals, name))
				cc_error(cc, dline, D_DECL_IDRED,
					 "global variable identifier redeclared: %s", name);
			/* the program may repeat a kernel typedef the target
			   declared (pasted `mt-live decls`): the kernel's stays;
			   its own typedefs it may not repeat at all (dtrace) */
			if (o && (!ty_same(o, t) || o->program_typedef) &&
			    !(o->from_target && !cc->c_layout))
				cc_error(cc, dline, D_DECL_IDRED,
					 "typedef redeclared: %s", name);
			if (!o) {
				o = ty_typedef(cc, t, name);
				o->from_target = cc->c_layout > 0;
				o->program_typedef = !o->from_target;
				ty_define(cc, name, o);
			}
		} else if (TY_K(t) == T_FUNC) {
			/* function prototypes are checked and otherwise ignored */
		} else if (ds.storage == KW_EXTERN) {
			/* a kernel symbol: not resolvable on the local target */
		} else {
			var_decl(cc, &ds, t, name, keys, dline);
		}
		if (lex_is_op(cc, OP_ASSIGN))
			lex_syntax_error(cc);
		if (!lex_is_op(cc, OP_COMMA))
			break;
		lex_next(cc);
	}
	lex_expect_op(cc, OP_SEMI);
	(void)in_clause;
}
