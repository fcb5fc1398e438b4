/* Helpers for the compiler unit tests: compile a -n/-s text. */
#ifndef CCUTIL_H
#define CCUTIL_H
#include <stdlib.h>
#include <string.h>
#include "machtrace/compiler.h"

/* Compile text (a -n pspec text or a -s file's), with the target's C
   types from ct (may be NULL). */
__attribute__((unused)) static struct mt_prog *cc_text_ct(const char *text, int pspec,
							  const struct mt_ctypes *ct,
							  struct mt_diag *d)
{
	static struct mt_opts o;
	mt_opts_init(&o);
	struct mt_cc_src src = { text, pspec ? text : "t.d", pspec };
	struct mt_cc_input in = { 0 };
	in.srcs = &src;
	in.nsrcs = 1;
	in.opts = &o;
	in.ctypes = ct;
	return mt_compile(&in, d);
}

__attribute__((unused)) static struct mt_prog *cc_text(const char *text, int pspec, struct mt_diag *d)
{
	return cc_text_ct(text, pspec, NULL, d);
}

/* Compile text that must fail; returns the diagnostic's tag. */
__attribute__((unused)) static const char *cc_fail(const char *text, struct mt_diag *d)
{
	struct mt_prog *p = cc_text(text, 0, d);
	if (p) {
		mt_prog_free(p);
		return "(compiled)";
	}
	return d->tag ? d->tag : "(no tag)";
}
#endif
