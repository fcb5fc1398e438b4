/*
 * The compiler's ground: the arena every pass allocates from and the
 * diagnostic every pass reports with (a line and a D_* tag of
 * include/machtrace/errtags.h).  It calls no other compiler file
 * (tests/suites/cccycle.sh checks it), so it is never part of the passes'
 * call cycle.
 *
 * Everything allocated here lives until cc_arena_free(); cc_error()
 * longjmps back to mt_compile(), which frees the arena with the rest of
 * the compiler state, so nothing leaks on that path.
 */
#include <stdlib.h>
#include <string.h>
#include "cc.h"

struct arena_blk {
	struct arena_blk *next;
	size_t used, size;
	max_align_t data[];
};

void *cc_alloc(struct cc *cc, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	struct arena_blk *b = cc->arena;
	if (!b || b->used + n > b->size) {
		size_t sz = n > 65536 ? n : 65536;
		b = calloc(1, sizeof(*b) + sz);
		if (!b)
			abort();
		b->size = sz;
		b->next = cc->arena;
		cc->arena = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

void cc_arena_free(struct cc *cc)
{
	while (cc->arena) {
		struct arena_blk *b = cc->arena;
		cc->arena = b->next;
		free(b);
	}
}

char *cc_strndup(struct cc *cc, const char *s, size_t n)
{
	char *p = cc_alloc(cc, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *cc_strdup(struct cc *cc, const char *s)
{
	return cc_strndup(cc, s, strlen(s));
}

char *cc_printf(struct cc *cc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = cc_alloc(cc, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

static _Noreturn void cc_verror(struct cc *cc, int line, const char *tag,
				 const char *fmt, va_list ap)
{
	cc->diag->tag = tag;
	cc->diag->line = line;
	cc->diag->src = cc->srcidx;
	cc->diag->lib = cc->lib;
	vsnprintf(cc->diag->msg, sizeof(cc->diag->msg), fmt, ap);
	longjmp(cc->jb, 1);
}

void cc_error(struct cc *cc, int line, enum mt_dtag tag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cc_verror(cc, line, mt_dtag_name(tag), fmt, ap);
}

void cc_error_notag(struct cc *cc, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cc_verror(cc, line, NULL, fmt, ap);
}

void cc_nest_in(struct cc *cc)
{
	if (++cc->nest > CC_MAXNEST)
		cc_error(cc, cc->line, D_SYNTAX,
			 "expression or declaration nested too deeply (compiler recursion limit %d)",
			 CC_MAXNEST);
}

struct node *nd_new(struct cc *cc, enum nkind k, int line)
{
	struct node *n = cc_alloc(cc, sizeof(*n));
	n->k = k;
	n->line = line;
	return n;
}
