/*
 * Lexer: D source text to tokens.
 *
 * The parser holds one current token (cc->tok) and may peek one more.  Probe
 * specifiers are lexed on request (lex_pspec) because their characters
 * (globs, '-', ':') overlap the expression tokens: the parser re-lexes from
 * the start of the current token.  Lines starting with '#' are control
 * lines (#pragma, #line, cpp's "# N file") handled here.  $N and $$N macro
 * arguments are substituted here, as dtrace does.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"

static const struct { const char *s; int kw; } kwtab[] = {
	{"auto", KW_AUTO}, {"break", KW_BREAK}, {"case", KW_CASE},
	{"char", KW_CHAR}, {"const", KW_CONST}, {"continue", KW_CONTINUE},
	{"counter", KW_COUNTER}, {"default", KW_DEFAULT}, {"do", KW_DO},
	{"double", KW_DOUBLE}, {"else", KW_ELSE}, {"enum", KW_ENUM},
	{"extern", KW_EXTERN}, {"float", KW_FLOAT}, {"for", KW_FOR},
	{"goto", KW_GOTO}, {"if", KW_IF}, {"import", KW_IMPORT},
	{"inline", KW_INLINE}, {"int", KW_INT}, {"long", KW_LONG},
	{"offsetof", KW_OFFSETOF}, {"probe", KW_PROBE},
	{"provider", KW_PROVIDER}, {"register", KW_REGISTER},
	{"restrict", KW_RESTRICT}, {"return", KW_RETURN}, {"self", KW_SELF},
	{"short", KW_SHORT}, {"signed", KW_SIGNED}, {"sizeof", KW_SIZEOF},
	{"static", KW_STATIC}, {"string", KW_STRING},
	{"stringof", KW_STRINGOF}, {"struct", KW_STRUCT},
	{"switch", KW_SWITCH}, {"this", KW_THIS},
	{"translator", KW_TRANSLATOR}, {"typedef", KW_TYPEDEF},
	{"union", KW_UNION}, {"unsigned", KW_UNSIGNED},
	{"userland", KW_USERLAND}, {"void", KW_VOID},
	{"volatile", KW_VOLATILE}, {"while", KW_WHILE}, {"xlate", KW_XLATE},
};

const char *kw_name(int kw)
{
	for (size_t i = 0; i < sizeof(kwtab) / sizeof(kwtab[0]); i++)
		if (kwtab[i].kw == kw)
			return kwtab[i].s;
	return "?";
}

int kw_is(const char *s)
{
	for (size_t i = 0; i < sizeof(kwtab) / sizeof(kwtab[0]); i++)
		if (strcmp(kwtab[i].s, s) == 0)
			return 1;
	return 0;
}

/* Longest first. */
static const struct { const char *s; int op; } optab[] = {
	{"...", OP_ELLIPSIS}, {"<<=", OP_SHL_EQ}, {">>=", OP_SHR_EQ},
	{"->", OP_ARROW}, {"++", OP_INC}, {"--", OP_DEC}, {"<<", OP_SHL},
	{">>", OP_SHR}, {"<=", OP_LE}, {">=", OP_GE}, {"==", OP_EQ},
	{"!=", OP_NE}, {"&&", OP_LAND}, {"||", OP_LOR}, {"^^", OP_LXOR},
	{"+=", OP_ADD_EQ}, {"-=", OP_SUB_EQ}, {"*=", OP_MUL_EQ},
	{"/=", OP_DIV_EQ}, {"%=", OP_MOD_EQ}, {"&=", OP_AND_EQ},
	{"|=", OP_OR_EQ}, {"^=", OP_XOR_EQ},
	{"(", OP_LPAR}, {")", OP_RPAR}, {"[", OP_LBRACK}, {"]", OP_RBRACK},
	{"{", OP_LBRACE}, {"}", OP_RBRACE}, {",", OP_COMMA}, {";", OP_SEMI},
	{":", OP_COLON}, {"?", OP_QUESTION}, {".", OP_DOT}, {"+", OP_PLUS},
	{"-", OP_MINUS}, {"*", OP_STAR}, {"/", OP_SLASH}, {"%", OP_MOD},
	{"&", OP_AMP}, {"|", OP_BOR}, {"^", OP_XOR}, {"!", OP_LNOT},
	{"~", OP_BNOT}, {"<", OP_LT}, {">", OP_GT}, {"=", OP_ASSIGN},
};

const char *op_name(int op)
{
	switch (op) {
	case OP_NEG: return "-";
	case OP_POS: return "+";
	case OP_DEREF: return "*";
	case OP_ADDROF: return "&";
	case OP_POSTINC: case OP_PREINC: return "++";
	case OP_POSTDEC: case OP_PREDEC: return "--";
	case OP_SIZEOF: return "sizeof";
	case OP_STRINGOF: return "stringof";
	case OP_COND: return "?:";
	case OP_INDEX: return "[]";
	case OP_CAST: return "(cast)";
	}
	for (size_t i = 0; i < sizeof(optab) / sizeof(optab[0]); i++)
		if (optab[i].op == op)
			return optab[i].s;
	return "?";
}

void lex_init(struct cc *cc, const char *text, int line)
{
	cc->text = cc->p = text;
	cc->line = line;
	cc->have_peek = 0;
	cc->depth = 0;
	/* an interpreter line "#!..." on line 1 is ignored */
	if (text[0] == '#' && text[1] == '!') {
		while (*cc->p && *cc->p != '\n')
			cc->p++;
	}
}

static int at_line_start(struct cc *cc, const char *q)
{
	while (q > cc->text && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	return q == cc->text || q[-1] == '\n';
}

/* A control line: #pragma, #line, "# N file", others are errors. */
static void control_line(struct cc *cc)
{
	const char *s = cc->p + 1, *e;
	int line = cc->line;

	e = s;
	while (*e && *e != '\n') {
		if (e[0] == '\\' && e[1] == '\n')
			cc->line++, e++;
		e++;
	}
	if (*e == '\0')
		cc_error(cc, cc->line, D_SYNTAX,
			 "end-of-file encountered before end of control line");
	char *body = cc_strndup(cc, s, e - s);
	cc->p = e;
	while (*body == ' ' || *body == '\t')
		body++;
	if (strncmp(body, "pragma", 6) == 0 &&
	    (body[6] == 0 || isspace((unsigned char)body[6]))) {
		pragma_line(cc, body + 6, line);
		return;
	}
	const char *q = body;
	if (strncmp(q, "line", 4) == 0 && !isalnum((unsigned char)q[4]))
		q += 4;
	while (*q == ' ' || *q == '\t')
		q++;
	if (isdigit((unsigned char)*q)) {
		/* the next line has number N */
		cc->line = (int)strtol(q, NULL, 10) - 1;
		return;
	}
	if (*q == 0)
		return;
	if (strncmp(body, "ident", 5) == 0)
		return;
	if (strncmp(body, "error", 5) == 0 &&
	    (body[5] == 0 || isspace((unsigned char)body[5])))
		pragma_error(cc, body + 5, line);
	cc_error(cc, line, D_PRAGCTL_INVAL, "invalid control directive: #%s",
		 cc_strndup(cc, body, strcspn(body, " \t")));
}

static void skip_ws(struct cc *cc)
{
	for (;;) {
		char c = *cc->p;
		if (c == '\n') {
			cc->line++;
			cc->p++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
			   c == '\v') {
			cc->p++;
		} else if (c == '/' && cc->p[1] == '*') {
			cc->p += 2;
			while (*cc->p && !(cc->p[0] == '*' && cc->p[1] == '/')) {
				if (*cc->p == '\n')
					cc->line++;
				cc->p++;
			}
			if (!*cc->p)
				cc_error(cc, cc->line, D_SYNTAX,
					 "end-of-file encountered before matching */");
			cc->p += 2;
		} else if (c == '/' && cc->p[1] == '/') {
			while (*cc->p && *cc->p != '\n')
				cc->p++;
		} else if (c == '#' && at_line_start(cc, cc->p)) {
			control_line(cc);
		} else {
			return;
		}
	}
}

static int esc_char(struct cc *cc, const char **pp)
{
	const char *p = *pp;
	unsigned v;

	switch (*p) {
	case 'n': v = '\n'; p++; break;
	case 't': v = '\t'; p++; break;
	case 'r': v = '\r'; p++; break;
	case 'a': v = '\a'; p++; break;
	case 'b': v = '\b'; p++; break;
	case 'f': v = '\f'; p++; break;
	case 'v': v = '\v'; p++; break;
	case '\\': v = '\\'; p++; break;
	case '\'': v = '\''; p++; break;
	case '"': v = '"'; p++; break;
	case '?': v = '?'; p++; break;
	case 'x':
		p++;
		v = 0;
		while (isxdigit((unsigned char)*p)) {
			/* as C: only the low byte of a long \x escape counts */
			v = (v * 16 + (unsigned)(isdigit((unsigned char)*p) ? *p - '0' :
				      (tolower((unsigned char)*p) - 'a' + 10))) & 0xff;
			p++;
		}
		break;
	default:
		if (*p >= '0' && *p <= '7') {
			v = 0;
			for (int i = 0; i < 3 && *p >= '0' && *p <= '7'; i++)
				v = v * 8 + (unsigned)(*p++ - '0');
		} else {
			v = (unsigned char)*p++;
		}
	}
	*pp = p;
	return (int)(v & 0xff);
}

static void lex_string(struct cc *cc, struct tok *t)
{
	const char *p = cc->p + 1;
	size_t cap = 64, n = 0;
	char *buf = cc_alloc(cc, cap);

	for (;;) {
		int c;
		if (*p == 0)
			cc_error(cc, cc->line, D_SYNTAX,
				 "end-of-file encountered before matching \"");
		if (*p == '"')
			break;
		if (*p == '\n')
			cc_error(cc, cc->line + 1, D_STR_NL,
				 "newline encountered in string literal");
		if (*p == '\\') {
			p++;
			if (*p == 0)	/* the NUL ends the text: stop before it */
				continue;
			if (*p == '\n') {
				cc->line++;
				p++;
				continue;
			}
			if (!strchr("ntrabfv\"'x01234567", *p)) {
				/* as dtrace: \?, \\ and unknown escapes stay */
				if (n + 3 > cap) {
					char *nb = cc_alloc(cc, cap * 2);
					memcpy(nb, buf, n);
					buf = nb;
					cap *= 2;
				}
				buf[n++] = '\\';
				c = (unsigned char)*p++;
				buf[n++] = (char)c;
				continue;
			}
			c = esc_char(cc, &p);
		} else {
			c = (unsigned char)*p++;
		}
		if (n + 2 > cap) {
			char *nb = cc_alloc(cc, cap * 2);
			memcpy(nb, buf, n);
			buf = nb;
			cap *= 2;
		}
		buf[n++] = (char)c;
	}
	buf[n] = 0;
	t->k = TK_STRING;
	t->text = buf;
	t->len = n;
	cc->p = p + 1;
}

static void lex_charconst(struct cc *cc, struct tok *t)
{
	const char *p = cc->p + 1;
	uint64_t v = 0;
	int n = 0;

	/* as dtrace: \' and \? and unknown escapes keep their backslash */
	while (*p && *p != '\'') {
		int c;
		if (*p == '\n')
			cc_error(cc, cc->line + 1, D_CHR_NL,
				 "newline encountered in character constant");
		if (*p == '\\' && p[1] && strchr("ntrabfv\\\"x01234567", p[1])) {
			p++;
			c = esc_char(cc, &p);
		} else if (*p == '\\' && p[1]) {
			v = (v << 8) | (uint64_t)'\\';
			n++;
			p++;
			c = (unsigned char)*p++;
		} else {
			c = (unsigned char)*p++;
		}
		v = (v << 8) | (uint64_t)c;
		n++;
	}
	if (*p != '\'')
		cc_error(cc, cc->line, D_SYNTAX,
			 "end-of-file encountered before matching '");
	if (n == 0)
		cc_error(cc, cc->line, D_CHR_NULL, "empty character constant");
	if (n > 8)
		cc_error(cc, cc->line, D_CHR_OFLOW,
			 "character constant is too long");
	/* a single char is a signed char promoted to int */
	if (n == 1)
		v = (uint64_t)(int64_t)(signed char)v;
	t->k = TK_INT;
	t->ival = v;
	t->text = NULL;
	t->is_unsigned = 0;
	t->is_long = n > 4;
	cc->p = p + 1;
}

static void lex_number(struct cc *cc, struct tok *t)
{
	const char *p = cc->p;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 0);
	int ovf = errno == ERANGE;
	/* "0128": an octal constant with a bad digit; "10ms": 10 then ms */
	if (*p == '0' && p[1] != 'x' && p[1] != 'X' && isdigit((unsigned char)*end)) {
		const char *q = end;
		while (isalnum((unsigned char)*q))
			q++;
		cc->p = q;
		cc_error(cc, cc->line, D_INT_DIGIT,
			 "constant %s contains invalid digit %c",
			 cc_strndup(cc, p, q - p), *end);
	}
	t->is_unsigned = t->is_long = 0;
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L') {
		if (*end == 'u' || *end == 'U')
			t->is_unsigned = 1;
		else
			t->is_long++;
		end++;
	}
	if (ovf)
		cc_error(cc, cc->line, D_INT_OFLOW,
			 "constant %s results in integer overflow",
			 cc_strndup(cc, p, end - p));
	t->k = TK_INT;
	t->ival = v;
	/* octal or hex constants may be unsigned in C's rules */
	t->text = (*p == '0' && p[1] != 0) ? "0x" : NULL;
	cc->p = end;
}

/* $N, $$N, $pid ...: returns 1 if it produced a token */
static void lex_macro(struct cc *cc, struct tok *t)
{
	const char *p = cc->p + 1;
	int dollar2 = 0;
	const struct mt_cc_input *in = cc->in;

	if (*p == '$') {
		dollar2 = 1;
		p++;
	}
	const char *s = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	char *name = cc_strndup(cc, s, p - s);
	cc->p = p;
	if (*name == 0) {
		t->k = TK_OP;
		t->op = OP_NONE;
		t->text = "$";
		cc_error(cc, cc->line, D_SYNTAX, "syntax error near \"%s\"",
			 dollar2 ? "$$" : "$");
	}
	const char *val = NULL;
	if (isdigit((unsigned char)*name)) {
		char *e;
		long i = strtol(name, &e, 10);
		if (i < 64)
			cc->macro_used |= 1ULL << i;
		if (*e)
			cc_error(cc, cc->line, D_SYNTAX,
				 "syntax error near \"%s\"",
				 cc_strndup(cc, cc->tok.start, p - cc->tok.start));
		if (i < in->nmacro_args && in->macro_args[i]) {
			val = in->macro_args[i];
		} else if (in->opts && in->opts->defaultargs) {
			val = dollar2 ? "" : "0";
		} else {
			cc_error(cc, cc->line, D_MACRO_UNDEF,
				 "macro argument %s is not defined",
				 cc_strndup(cc, cc->tok.start, p - cc->tok.start));
		}
	} else {
		struct ident *id = id_lookup(&cc->globals, cc_printf(cc, "$%s", name));
		if (!id || id->k != ID_MACRO)
			cc_error(cc, cc->line, D_MACRO_UNDEF,
				 "macro variable %s is not defined",
				 cc_strndup(cc, cc->tok.start, p - cc->tok.start));
		if (dollar2) {
			t->k = TK_STRING;
			t->text = cc_printf(cc, "%lld", (long long)id->val);
			t->len = strlen(t->text);
			return;
		}
		t->k = TK_INT;
		t->ival = (uint64_t)id->val;
		t->text = NULL;
		t->is_unsigned = t->is_long = 0;
		return;
	}
	if (dollar2) {
		t->k = TK_STRING;
		t->text = cc_strdup(cc, val);
		t->len = strlen(val);
		return;
	}
	char *e;
	errno = 0;
	unsigned long long v = strtoull(val, &e, 0);
	if (*val && *e == 0 && errno == 0) {
		t->k = TK_INT;
		t->ival = v;
		t->text = NULL;
		t->is_unsigned = t->is_long = 0;
		return;
	}
	if (*val == '-' && isdigit((unsigned char)val[1])) {
		long long sv = strtoll(val, &e, 0);
		if (*e == 0) {
			t->k = TK_INT;
			t->ival = (uint64_t)sv;
			t->text = NULL;
			t->is_unsigned = t->is_long = 0;
			return;
		}
	}
	/* an identifier-like value is an identifier */
	const char *q = val;
	int ok = isalpha((unsigned char)*q) || *q == '_';
	for (; *q && ok; q++)
		if (!isalnum((unsigned char)*q) && *q != '_' && *q != '`')
			ok = 0;
	if (ok) {
		t->k = TK_IDENT;
		t->text = cc_strdup(cc, val);
		return;
	}
	cc_error(cc, cc->line, D_MACRO_TOKEN,
		 "invalid token in macro argument %s: %s",
		 cc_strndup(cc, cc->tok.start, p - cc->tok.start), val);
}

static void lex_one(struct cc *cc, struct tok *t)
{
	skip_ws(cc);
	memset(t, 0, sizeof(*t));
	t->start = cc->p;
	t->line = cc->line;
	const char *p = cc->p;
	char c = *p;

	if (c == 0) {
		t->k = TK_EOF;
	} else if (isalpha((unsigned char)c) || c == '_') {
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		/* mod`name is one (scoped) identifier, as in dtrace */
		while (*p == '`' && (isalpha((unsigned char)p[1]) || p[1] == '_')) {
			p++;
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
				p++;
		}
		t->text = cc_strndup(cc, cc->p, p - cc->p);
		cc->p = p;
		t->k = TK_IDENT;
		for (size_t i = 0; i < sizeof(kwtab) / sizeof(kwtab[0]); i++)
			if (strcmp(kwtab[i].s, t->text) == 0) {
				t->k = TK_KEYWORD;
				t->kw = kwtab[i].kw;
				break;
			}
		/* a global variable's name wins over a type's (id_or_type) */
		if (t->k == TK_IDENT && !id_lookup(&cc->globals, t->text) &&
		    ty_lookup(cc, t->text))
			t->k = TK_TYPENAME;
	} else if (isdigit((unsigned char)c)) {
		lex_number(cc, t);
	} else if (c == '"') {
		lex_string(cc, t);
	} else if (c == '\'') {
		lex_charconst(cc, t);
	} else if (c == '@') {
		p++;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		t->k = TK_AGG;
		t->text = cc_strndup(cc, cc->p + 1, p - cc->p - 1);
		cc->p = p;
	} else if (c == '$') {
		lex_macro(cc, t);
		dump_token(cc, t->start, cc->p, t);
	} else if (c == '`') {
		t->k = TK_BACKQUOTE;
		cc->p++;
	} else {
		for (size_t i = 0; i < sizeof(optab) / sizeof(optab[0]); i++) {
			size_t n = strlen(optab[i].s);
			if (strncmp(p, optab[i].s, n) == 0) {
				t->k = TK_OP;
				t->op = optab[i].op;
				cc->p += n;
				break;
			}
		}
		if (t->k != TK_OP) {
			cc->p++;
			t->end = cc->p;
			cc_error(cc, cc->line, D_SYNTAX, "invalid character '%c'",
				 c);
		}
		switch (t->op) {
		case OP_LPAR: cc->depth++; break;
		case OP_LBRACK: cc->brackets++; break;
		case OP_RPAR:
			if (--cc->depth < 0)
				cc_error(cc, cc->line, D_SYNTAX,
					 "extra ) in input stream");
			break;
		case OP_RBRACK:
			if (--cc->brackets < 0)
				cc_error(cc, cc->line, D_SYNTAX,
					 "extra ] in input stream");
			break;
		case OP_SLASH: {
			/* "/" before EOF, ';', '{' or '/' closes a predicate */
			const char *q = cc->p;
			int nl = 0;
			while (*q && strchr("\f\n\r\t\v ", *q))
				nl += *q++ == '\n';
			/* dtrace's lexer reads ahead over the white space */
			cc->p = q;
			cc->line += nl;
			nl = 0;
			if (*q == 0 || *q == ';' || *q == '{' || *q == '/') {
				if (cc->depth)
					cc_error(cc, cc->line + nl, D_SYNTAX,
						 "closing ) expected in predicate before /");
				if (cc->brackets)
					cc_error(cc, cc->line + nl, D_SYNTAX,
						 "closing ] expected in predicate before /");
				t->op = OP_EPRED;
			}
			break;
		}
		}
	}
	t->end = cc->p;
}

void lex_next(struct cc *cc)
{
	if (cc->have_peek) {
		cc->tok = cc->peek;
		cc->have_peek = 0;
		return;
	}
	lex_one(cc, &cc->tok);
}

struct tok *lex_peek(struct cc *cc)
{
	if (!cc->have_peek) {
		struct tok save = cc->tok;
		lex_one(cc, &cc->peek);
		cc->tok = save;
		cc->have_peek = 1;
	}
	return &cc->peek;
}

/* Characters of a probe specifier (dtrace's RGX_PSPEC plus macros). */
static int pspec_char(char c)
{
	return isalnum((unsigned char)c) || strchr("-_.:?*\\[]!$`'\"", c);
}

/*
 * The text of the macro at p ("$1", "$target") in a probe specifier,
 * *end past its name: $N a script argument, $name a macro variable's
 * decimal value (pid$target).
 */
static const char *pspec_macro(struct cc *cc, const char *p, const char **end)
{
	const char *s = p + 1, *e = s;
	struct ident *id;

	if (isdigit((unsigned char)*s)) {
		char *ne;
		long i = strtol(s, &ne, 10);
		*end = ne;
		if (i < 64)
			cc->macro_used |= 1ULL << i;
		if (i < cc->in->nmacro_args)
			return cc->in->macro_args[i];
		if (!cc->in->opts || !cc->in->opts->defaultargs)
			cc_error(cc, cc->line, D_MACRO_UNDEF,
				 "macro argument %s is not defined",
				 cc_strndup(cc, p, ne - p));
		return "";
	}
	while (isalnum((unsigned char)*e) || *e == '_')
		e++;
	*end = e;
	id = id_lookup(&cc->globals, cc_strndup(cc, p, e - p));
	if (id && id->k == ID_MACRO)
		return cc_printf(cc, "%lld", (long long)id->val);
	cc_error(cc, cc->line, D_MACRO_UNDEF, "macro variable %s is not defined",
		 cc_strndup(cc, p, e - p));
	return "";
}

/*
 * Re-lex the current token as a probe specifier: a maximal run of pspec
 * characters.  $N and $name macros are expanded in place.
 */
void lex_pspec(struct cc *cc)
{
	const char *p;
	size_t cap = 128, n = 0;
	char *buf;

	if (cc->have_peek) {
		/* undo the peeked token: it is re-read below */
		cc->have_peek = 0;
	}
	cc->p = cc->tok.start;
	cc->line = cc->tok.line;
	cc->depth = cc->brackets = 0;
	p = cc->p;
	buf = cc_alloc(cc, cap);
	while (*p && (pspec_char(*p) || mt_pdesc_file_slash(buf, n, p))) {
		if (n + 256 > cap) {
			char *nb = cc_alloc(cc, cap * 4);
			memcpy(nb, buf, n);
			buf = nb;
			cap *= 4;
		}
		if (*p == '$' && (isalnum((unsigned char)p[1]) || p[1] == '_')) {
			const char *e;
			const char *val = pspec_macro(cc, p, &e);
			size_t vl = strlen(val);
			if (n + vl + 256 > cap) {
				char *nb = cc_alloc(cc, cap + vl + 256);
				memcpy(nb, buf, n);
				buf = nb;
				cap += vl + 256;
			}
			memcpy(buf + n, val, vl);
			n += vl;
			p = e;
			continue;
		}
		if (*p == '"' || *p == '\'')
			break;
		buf[n++] = *p++;
	}
	buf[n] = 0;
	dump_pspec(cc, cc->p, p, buf);
	memset(&cc->tok, 0, sizeof(cc->tok));
	cc->tok.k = TK_PSPEC;
	cc->tok.text = buf;
	cc->tok.start = cc->p;
	cc->tok.end = p;
	cc->tok.line = cc->line;
	cc->p = p;
}

/*
 * At the top level: does the current token start a probe specifier rather
 * than a declaration?  Keywords and type names start declarations unless a
 * ':' follows the word (then it is a provider name).
 */
int lex_at_pspec(struct cc *cc)
{
	struct tok *t = &cc->tok;
	if (cc->force_pspec && t->k != TK_EOF)
		return 1;
	if (t->k == TK_KEYWORD || t->k == TK_TYPENAME) {
		const char *q = t->end;
		if (*q == ':')
			return 1;
		if (t->k == TK_KEYWORD && (t->kw == KW_SELF || t->kw == KW_THIS))
			return 0;
		return 0;
	}
	if (t->k == TK_IDENT || t->k == TK_INT || t->k == TK_MACRO)
		return 1;
	if (t->k == TK_OP && (t->op == OP_COLON || t->op == OP_STAR ||
			      t->op == OP_MINUS || t->op == OP_LBRACK ||
			      t->op == OP_QUESTION || t->op == OP_DOT))
		return 1;
	return 0;
}

static const char *tok_str(struct cc *cc, const struct tok *t)
{
	if (t->k == TK_EOF)
		return NULL;
	if (t->k == TK_PSPEC)
		return t->text;
	return cc_strndup(cc, t->start, t->end - t->start);
}

/* Token helpers shared by the parser passes (parse.c, decl.c). */
int lex_is_op(struct cc *cc, int op)
{
	return cc->tok.k == TK_OP && cc->tok.op == op;
}

_Noreturn void lex_syntax_error(struct cc *cc)
{
	const char *s = tok_str(cc, &cc->tok);
	if (!s)
		cc_error(cc, cc->tok.line, D_SYNTAX,
			 "syntax error near end of input");
	cc_error(cc, cc->tok.line, D_SYNTAX, "syntax error near \"%s\"", s);
}

void lex_expect_op(struct cc *cc, int op)
{
	if (!lex_is_op(cc, op))
		lex_syntax_error(cc);
	lex_next(cc);
}
