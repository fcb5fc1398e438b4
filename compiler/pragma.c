/*
 * #pragma D option/depends_on/attributes/binding/ident and #pragma ident.
 * Options are recorded in order (struct mt_optset) and checked with
 * mt_opts_set() on a scratch copy so that bad names/values are reported
 * at the pragma's line as dtrace does (D_PRAGMA_OPTSET).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "cc.h"

/* alloca()'s limit for a scratchsize option value (see mt_opts_set) */
uint64_t scratch_limit(uint64_t scratchsize)
{
	return scratchsize > 8 ? scratchsize - 8 : 0;
}

static char *next_word(struct cc *cc, const char **pp)
{
	const char *p = *pp;
	while (*p == ' ' || *p == '\t')
		p++;
	const char *s = p;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n')
		p++;
	*pp = p;
	return p > s ? cc_strndup(cc, s, p - s) : NULL;
}

static const char *const noprog_opts[] = { "ldpath", "modpath", "libdir",
					   "syslibdir", "cpppath", NULL };

/* #pragma D option name[=value]: exactly one token, as dt_pragma_option */
static void pragma_option(struct cc *cc, const char *p, int line)
{
	char *w = next_word(cc, &p);
	if (w == NULL)
		cc_error(cc, line, D_PRAGMA_MALFORM,
			 "malformed #pragma option <option>=<val>");
	if (next_word(cc, &p) != NULL)
		cc_error(cc, line, D_PRAGMA_MALFORM,
			 "superfluous arguments specified for #pragma option");
	{
		char *eq = strchr(w, '=');
		char *name = w, *val = NULL;
		if (eq) {
			*eq = 0;
			val = eq + 1;
		}
		for (int i = 0; noprog_opts[i]; i++)
			if (strcmp(name, noprog_opts[i]) == 0)
				cc_error(cc, line, D_PRAGMA_OPTSET,
					 "failed to set option '%s' to '%s': Option cannot be used from within a D program",
					 name, val ? val : "");
		if (cc->in->opts) {
			struct mt_opts tmp = *cc->in->opts;
			tmp.stdc = NULL;
			tmp.version = NULL;
			const char *tag = NULL;
			char err[256] = "";
			if (mt_opts_set(&tmp, name, val, &tag, err, sizeof(err)) != 0)
				cc_error(cc, line, D_PRAGMA_OPTSET,
					 "failed to set option '%s' to '%s': %s", name,
					 val ? val : "", err[0] ? err : "Invalid option name");
			if (strcmp(name, "scratchsize") == 0 &&
			    tmp.scratchsize != MT_OPT_UNSET) {
				cc->scratch_lim = scratch_limit(tmp.scratchsize);
				cc->scratch_size = tmp.scratchsize;
			}
			if (strcmp(name, "strsize") == 0 && tmp.strsize != MT_OPT_UNSET &&
			    tmp.strsize)
				cc->strsize = mt_opts_strsize(tmp.strsize);
			cc->t_string->size = cc->strsize;
			if (tmp.stdc != cc->in->opts->stdc)
				free(tmp.stdc);
			if (tmp.version != cc->in->opts->version)
				free(tmp.version);
		}
		struct mt_optset os = { strdup(name), val ? strdup(val) : NULL, line };
		VEC_PUSH(cc, cc->optsets, os);
		if (strcmp(name, "pspec") == 0)
			cc->force_pspec = 1;
		if (strcmp(name, "strsize") == 0 && val) {
			long v = strtol(val, NULL, 0);
			if (v > 0)
				cc->strsize = mt_opts_strsize((uint64_t)v);
		}
	}
}

/*
 * #pragma D binding and attributes name an identifier, as dtrace's
 * dt_pragma_binding/attributes: one the program declared takes it; a
 * built-in or a D library's may not be changed (D_PRAGMA_SCOPE); one not
 * yet declared waits for the next global of that name (id_add), and one
 * still undeclared when the program is parsed is reported by
 * pragma_unused(), as dtrace's dt_idpragma.  The name is the control
 * line's word as dtrace's lexer takes it: "x;" is not x.
 */
static void pragma_ident(struct cc *cc, const char *prname, char *name,
			 const struct mt_attr *attr, int line)
{
	struct ident *id = id_lookup(&cc->globals, name);

	if (id && id->outside && cc->in_prog)
		cc_error(cc, line, D_PRAGMA_SCOPE,
			 "#pragma %s cannot modify entity defined outside program scope",
			 prname);
	if (id && attr) {
		id->has_attr = 1;
		id->attr = *attr;
	}
	if (id)
		return;
	struct binding *b = cc_alloc(cc, sizeof(*b));
	b->name = name;
	b->prname = prname;
	if (attr) {
		b->has_attr = 1;
		b->attr = *attr;
	}
	b->line = line;
	b->src = cc->srcidx;
	b->next = cc->bindings;
	cc->bindings = b;
}

/*
 * #pragma D attributes ATTR IDENT, or ATTR provider NAME PART for a part
 * of one of machtrace's providers (the -v report's, program.h), as
 * dtrace's dt_pragma_attributes; a provider machtrace does not have makes
 * NAME a pending identifier, as there.
 */
static void pragma_attributes(struct cc *cc, const char *p, int line)
{
	static const char *const parts[MT_PA_N] = { "provider", "module",
		"function", "name", "args" };
	char *attr = next_word(cc, &p), *ident = next_word(cc, &p);
	struct mt_attr a;

	if (!attr || !ident)
		cc_error(cc, line, D_PRAGMA_MALFORM,
			 "malformed #pragma attributes <attributes> <ident>");
	if (mt_attr_parse(attr, &a) != 0)
		cc_error(cc, line, D_PRAGMA_INVAL,
			 "invalid attributes specified by #pragma attributes");
	if (strcmp(ident, "provider") == 0) {
		char *prov = next_word(cc, &p), *part = next_word(cc, &p);
		int i = 0;

		if (!prov || !part)
			cc_error(cc, line, D_PRAGMA_MALFORM,
				 "malformed #pragma attributes <attributes> <ident>");
		if (mt_provattr_lookup(prov) != NULL) {
			while (i < MT_PA_N && strcmp(part, parts[i]) != 0)
				i++;
			/* the two names in dtrace's order */
			if (i == MT_PA_N)
				cc_error(cc, line, D_PRAGMA_INVAL,
					 "invalid component \"%s\" in attribute #pragma for provider %s",
					 prov, part);
			struct mt_pragattr pa = { strdup(prov), i, a };
			VEC_PUSH(cc, cc->pragattrs, pa);
			return;
		}
		ident = prov;
	}
	pragma_ident(cc, "attributes", ident, &a, line);
}

static void pragma_binding(struct cc *cc, const char *p, int line)
{
	char *vers = next_word(cc, &p), *name = next_word(cc, &p);
	size_t vl = vers ? strlen(vers) : 0;
	if (vl < 2 || vers[0] != '"' || vers[vl - 1] != '"' || !name ||
	    next_word(cc, &p))
		cc_error(cc, line, D_PRAGMA_MALFORM,
			 "malformed #pragma binding \"version\" <ident>");
	vers[vl - 1] = 0;
	if (!mt_version_wellformed(vers + 1))
		cc_error(cc, line, D_PRAGMA_INVAL,
			 "invalid version string specified by #pragma binding");
	pragma_ident(cc, "binding", name, NULL, line);
}

void pragma_unused(struct cc *cc)
{
	if (cc->bindings) {
		cc->srcidx = cc->bindings->src;
		cc_error(cc, cc->bindings->line, D_PRAGMA_UNUSED,
			 "unused #pragma %s", cc->bindings->prname);
	}
}

/*
 * #error / #pragma [D] error: dtrace joins the words and strings of the
 * line, each followed by a space (string quotes dropped).
 */
void pragma_error(struct cc *cc, const char *p, int line)
{
	char *msg = cc_strndup(cc, "", 0);
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		const char *s = p;
		size_t n;
		if (*p == '"') {
			s = ++p;
			while (*p && *p != '"' && *p != '\n')
				p += (*p == '\\' && p[1]) ? 2 : 1;
			n = (size_t)(p - s);
			if (*p == '"')
				p++;
		} else {
			while (*p && *p != ' ' && *p != '\t' && *p != '\n')
				p++;
			n = (size_t)(p - s);
		}
		msg = cc_printf(cc, "%s%.*s ", msg, (int)n, s);
	}
	cc_error(cc, line, D_PRAGERR, "#error: %s", msg);
}

/*
 * "#pragma machtrace layout c" lays out the structs and unions declared
 * after it as the C compiler does (the target's declarations from mt-live
 * decls, pasted into a program, keep the kernel's offsets); "layout d"
 * returns to dtrace's layout.  dtrace ignores pragmas of other names.
 */
static void pragma_machtrace(struct cc *cc, const char *p)
{
	char *w = next_word(cc, &p);
	if (w && strcmp(w, "layout") == 0 && (w = next_word(cc, &p)) != NULL)
		cc->c_layout_pragma = strcmp(w, "c") == 0;
}

void pragma_line(struct cc *cc, const char *text, int line)
{
	const char *p = text;
	char *w = next_word(cc, &p);
	if (!w)
		return;
	if (strcmp(w, "ident") == 0)
		return;
	if (strcmp(w, "error") == 0)
		pragma_error(cc, p, line);
	if (strcmp(w, "machtrace") == 0) {
		pragma_machtrace(cc, p);
		return;
	}
	if (strcmp(w, "D") != 0)
		return;		/* other pragmas are ignored, as by dtrace */
	w = next_word(cc, &p);
	if (!w)
		return;		/* a bare #pragma D is a null directive */
	if (strcmp(w, "option") == 0) {
		pragma_option(cc, p, line);
	} else if (strcmp(w, "depends_on") == 0) {
		char *kind = next_word(cc, &p), *what = next_word(cc, &p);
		if (!kind || !what)
			cc_error(cc, line, D_PRAGMA_MALFORM,
				 "malformed #pragma depends_on <class> <name>");
		if (strcmp(kind, "library") && strcmp(kind, "provider") &&
		    strcmp(kind, "module"))
			cc_error(cc, line, D_PRAGMA_INVAL,
				 "invalid class %s specified by #pragma depends_on", kind);
		if (strcmp(kind, "library") == 0)
			cc_error(cc, line, D_PRAGMA_DEPEND,
				 "main program may not explicitly depend on a library");
		if (strcmp(kind, "provider") == 0 &&
		    mt_provattr_lookup(what) == NULL)
			cc_error(cc, line, D_PRAGMA_DEPEND,
				 "failed to resolve provider dependency %s", what);
		if (strcmp(kind, "module") == 0)
			cc_error(cc, line, D_PRAGMA_DEPEND,
				 "failed to resolve module dependency %s", what);
	} else if (strcmp(w, "attributes") == 0) {
		pragma_attributes(cc, p, line);
	} else if (strcmp(w, "error") == 0) {
		pragma_error(cc, p, line);
	} else if (strcmp(w, "binding") == 0) {
		pragma_binding(cc, p, line);
	} else if (strcmp(w, "line") == 0 || strcmp(w, "ident") == 0) {
		return;
	} else {
		cc_error(cc, line, D_PRAGMA_INVAL, "invalid D pragma: %s", w);
	}
}
