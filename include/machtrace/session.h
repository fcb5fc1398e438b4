/*
 * A tracing session (session/), as libdtrace's dtrace_open .. dtrace_close:
 * the target rule (which target runs a program), the kernel target the
 * compiler asks for C types through struct mt_ctypes, the compilation
 * with the kernel D library, and the consume loop.  A library: it returns
 * errors and keeps its state in struct mt_session; its messages go to the
 * err stream given at open, worded as dtrace's.
 *
 *   s = mt_session_open(&live, force, stderr);
 *   prog = mt_session_compile(s, &in, &diag);   the D library when needed
 *   t = mt_session_target(s, prog);             local, or the kernel's
 *   img = mt_link(prog, &opts, t, &bad, err, len);
 *   mt_session_refused(img, t, ...);            may the image run there?
 *   t->ops->attach(t, img); c = mt_consumer_new(..); mt_consumer_attach(..)
 *   t->ops->begin(t);                           go
 *   failed = mt_session_work(s, t, c, &work);   records and aggregations to
 *                                               the consumer (and its hooks)
 *   failed |= mt_session_stop(s, t, c, ..);     END, the last drain
 *   t->ops->detach(t); mt_target_free(t); mt_session_close(s);
 */
#ifndef MACHTRACE_SESSION_H
#define MACHTRACE_SESSION_H

#include <signal.h>
#include <stdio.h>
#include "machtrace/compiler.h"
#include "machtrace/live.h"
#include "machtrace/options.h"
#include "machtrace/program.h"

struct mt_session;
struct mt_consumer;

/*
 * live: the kernel target's options (its strings must outlive the
 * session); force: the kernel runs every program whatever its clauses
 * (--mach, --kernel, --module, --workload, a VM).  NULL when out of memory.
 */
struct mt_session *mt_session_open(const struct mt_live_opts *live, int force,
				   FILE *err);
/* Frees the kernel target made for types and not taken (compile failed). */
void mt_session_close(struct mt_session *s);
/* A new kernel target to list probes from: the session's kernel image
   only (no VM, modules or workload); the caller frees it.  NULL with err
   filled when the kernel cannot be read. */
struct mt_target *mt_session_catalog(struct mt_session *s, char *err,
				     size_t errlen);
/* The stream the session's messages go to. */
FILE *mt_session_err(const struct mt_session *s);

/*
 * The target rule (README, machtrace -h): a description is the kernel's
 * when it names a kernel provider (fbt, kinst, mach_trap, the Mach SDT
 * providers, a guest task's pid<N> or usdt provider; a glob matching
 * one), or names no provider and only the kernel can match it, or the
 * kernel is forced (profile, tick and BEGIN/END then run in it too).
 */
int mt_session_desc_wants_kernel(struct mt_session *s, const struct mt_pdesc *pd);
/* A target's probes() callback counting the probes (int *arg). */
int mt_session_count_cb(void *arg, const struct mt_probe_info *p);
/* Does any clause's description belong to the kernel? */
int mt_session_wants_kernel(struct mt_session *s, const struct mt_prog *prog);

/*
 * Compile in (its libs and ctypes are the session's to set; with
 * MT_CC_DUMP its expand too): a program that runs in the kernel after the
 * kernel D library (mach.d), as dtrace compiles its libraries first.
 * NULL with diag filled.
 */
struct mt_prog *mt_session_compile(struct mt_session *s, struct mt_cc_input *in,
				   struct mt_diag *diag);

/* The target that runs prog: the local one, or the kernel's (the one
   made for its types); NULL after saying why on err. */
struct mt_target *mt_session_target(struct mt_session *s, const struct mt_prog *prog);

/*
 * What img may not do on t, as dtrace's "could not enable tracing"
 * reason (in buf, or a constant), or NULL: destructive actions without
 * -w, and with -w what means nothing on this target.
 */
const char *mt_session_refused(const struct mt_image *img, const struct mt_target *t,
			       char *buf, size_t len);

/*
 * The consume loop until the program ends, the target stops, poll()
 * returns non-zero or *intr is set (the caller's SIGINT/SIGTERM count):
 * each step polls the target, drains records into the consumer, and
 * calls poll (may be NULL).  Returns 1 after reporting a failure on err.
 */
struct mt_session_work {
	const struct mt_opts *opts;	/* switchrate, statusrate */
	volatile sig_atomic_t *intr;
	FILE *out;			/* after an interrupt, a newline when
					   a terminal (dtrace tidies it) */
	int (*poll)(void *arg, struct mt_consumer *c);
	void *arg;
};
int mt_session_work(struct mt_session *s, struct mt_target *t,
		    struct mt_consumer *c, const struct mt_session_work *w);
/* END: stop tracing, the last drain and drop report.  1 after reporting
   a failure on err (not when failed already says one was). */
int mt_session_stop(struct mt_session *s, struct mt_target *t,
		    struct mt_consumer *c, int failed);

#endif /* MACHTRACE_SESSION_H */
