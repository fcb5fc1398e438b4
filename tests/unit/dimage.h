/*
 * Unit tests' D programs: source compiled and linked for a target, as
 * the CLI would (cmd/machtrace/session.c does more: options, probes
 * listed, errors tagged).
 */
#ifndef MT_TEST_DIMAGE_H
#define MT_TEST_DIMAGE_H

#include <stdio.h>
#include <string.h>
#include "machtrace/compiler.h"
#include "machtrace/options.h"
#include "machtrace/program.h"

/* src's enabling image for target t (free() it) with options o (NULL:
   the defaults); NULL, with why printed as a "# " line, if it does not
   compile or link. */
static inline struct mt_image *mt_test_dimage(const char *src, struct mt_opts *o,
					      struct mt_target *t)
{
	struct mt_cc_src s = { src, src, 0 };
	struct mt_cc_input in;
	struct mt_diag diag;
	struct mt_opts defaults;
	struct mt_prog *prog;
	struct mt_image *img;
	char err[512];

	if (!o) {
		mt_opts_init(&defaults);
		o = &defaults;
	}
	memset(&in, 0, sizeof in);
	in.srcs = &s;
	in.nsrcs = 1;
	in.opts = o;
	if (!(prog = mt_compile(&in, &diag))) {
		printf("# compile: %s\n", diag.msg);
		return NULL;
	}
	img = mt_link(prog, o, t, NULL, err, sizeof err);
	if (!img)
		printf("# link: %s\n", err);
	mt_prog_free(prog);
	return img;
}

#endif
