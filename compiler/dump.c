/*
 * -d (MT_CC_DUMP): the program's sources after every rewrite machtrace
 * makes, as D that compiles to the same enabling (FreeBSD dtrace's -d):
 * the C preprocessor's output with -C, $N, $$N and macro variables
 * ($target, $pid) as their values, and each probe description as the
 * lexer expanded it and then as the target expands it (in->expand:
 * kinst::FUNC:entry of an inlined FUNC becomes the kinst::CALLER:OFFSET
 * of each copy).  The lexer notes each rewrite of the source being
 * parsed; dump_source then appends that source, rewritten, to cc->dump.
 * A source is rewritten in order, a rewrite inside an earlier, wider one
 * (a macro inside a probe description) being part of it.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/cc.h"
#include "machtrace/esc.h"
#include "machtrace/vec.h"

struct dump_rw {
	const char *start, *end;
	char *text;		/* cc's arena */
};

static int dumping(const struct cc *cc)
{
	return (cc->in->flags & MT_CC_DUMP) && cc->srcidx >= 0 && !cc->lib;
}

static void dump_note(struct cc *cc, const char *start, const char *end, const char *text)
{
	struct dump_rw *rw = NULL;

	if (!dumping(cc))
		return;
	for (size_t i = 0; i < cc->nrws && !rw; i++)
		if (cc->rws[i].start == start)
			rw = &cc->rws[i];
	if (!rw) {
		if (MT_VEC_ROOM(cc->rws, cc->nrws, cc->caprws, 16) != 0)
			abort();	/* as cc_alloc */
		rw = &cc->rws[cc->nrws++];
	}
	rw->start = start;
	rw->end = end;
	rw->text = cc_strdup(cc, text);
}

void dump_pspec(struct cc *cc, const char *start, const char *end, const char *pspec)
{
	char *x;

	if (!dumping(cc))
		return;
	x = cc->in->expand ? cc->in->expand(cc->in->expand_arg, pspec) : NULL;
	dump_note(cc, start, end, x ? x : pspec);
	free(x);
}

/* A macro token t (lex_macro) as D: its number, string or identifier. */
void dump_token(struct cc *cc, const char *start, const char *end, const struct tok *t)
{
	char *s, e[8];
	size_t n = 0;

	if (!dumping(cc))
		return;
	if (t->k == TK_INT) {
		dump_note(cc, start, end, (int64_t)t->ival < 0 ?
			  cc_printf(cc, "%lld", (long long)t->ival) :
			  cc_printf(cc, "%llu", (unsigned long long)t->ival));
		return;
	}
	if (t->k != TK_STRING) {
		dump_note(cc, start, end, t->text ? t->text : "");
		return;
	}
	s = cc_alloc(cc, 4 * t->len + 3);
	s[n++] = '"';
	for (size_t i = 0; i < t->len; i++) {
		mt_esc_char(t->text[i], e, 1);
		memcpy(s + n, e, strlen(e));
		n += strlen(e);
	}
	s[n++] = '"';
	s[n] = 0;
	dump_note(cc, start, end, s);
}

static void append(struct cc *cc, const char *s, size_t n)
{
	char *v = realloc(cc->dump, cc->dumplen + n + 1);

	if (!v)
		abort();
	memcpy(v + cc->dumplen, s, n);
	cc->dumplen += n;
	v[cc->dumplen] = 0;
	cc->dump = v;
}

static int by_start(const void *a, const void *b)
{
	const struct dump_rw *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void dump_source(struct cc *cc, const char *text)
{
	const char *p = text;

	if (!dumping(cc))
		return;
	qsort(cc->rws, cc->nrws, sizeof *cc->rws, by_start);
	for (size_t i = 0; i < cc->nrws; i++) {
		const struct dump_rw *rw = &cc->rws[i];
		if (rw->start < p)
			continue;
		append(cc, p, (size_t)(rw->start - p));
		append(cc, rw->text, strlen(rw->text));
		p = rw->end;
	}
	append(cc, p, strlen(p));
	if (!cc->dumplen || cc->dump[cc->dumplen - 1] != '\n')
		append(cc, "\n", 1);
	cc->nrws = 0;
}
