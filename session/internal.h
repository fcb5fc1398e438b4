/*
 * What session/'s files share and its clients do not call.
 */
#ifndef MT_SESSION_INTERNAL_H
#define MT_SESSION_INTERNAL_H

#include <stdio.h>
#include "machtrace/options.h"
#include "machtrace/program.h"
#include "machtrace/session.h"

struct mt_consumer;
struct mt_kernel_syms;

struct mt_session {
	struct mt_live_opts live;
	int force;
	FILE *err;
	struct mt_target *kernel;	/* created on demand, or NULL */
	int failed;			/* its creation failed (reported once) */
	int seen;			/* a question about a kernel description
					   found it (since it was handed over) */
	struct mt_ctypes ctypes;
};

/*
 * memory.c: bound the state area by the host's memory (the local target)
 * or by the target's own bound (the kernel's region), lowering bufsize &
 * co. as dtrace's bufresize=auto does; -1 after saying "Not enough space".
 */
int mt_session_fit_memory(const struct mt_opts *opts, FILE *err,
			  struct mt_target *t, struct mt_image *img);

/* symbols.c: the consumer resolves kernel addresses through the kernel
   image (NULL: the stock one), opened on the first; free after the
   consumer. */
struct mt_kernel_syms *mt_session_kernel_symbols(const char *kernel,
						 struct mt_consumer *c);
void mt_session_kernel_symbols_free(struct mt_kernel_syms *ks);

#endif
