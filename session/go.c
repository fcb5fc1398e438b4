/*
 * Running a linked image to its end (mt_session_go): the steps between
 * link and exit that every command and tool takes in the same order, so
 * that a tool's session behaves as a dtrace(1) session does.
 */
#include <stdlib.h>
#include <string.h>
#include "machtrace/consumer.h"
#include "machtrace/runtime.h"
#include "session/internal.h"

void
mt_session_probe_cost(const struct mt_cb *cb, uint64_t *fires, uint64_t *ns)
{
	const struct mt_cpustat *s;

	*fires = *ns = 0;
	if (cb == NULL || cb->cpustat_off == 0)
		return;
	s = (const void *)((const char *)cb + cb->cpustat_off);
	*fires = __atomic_load_n(&cb->nfirings, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < cb->ncpus; i++)
		*ns += __atomic_load_n(&s[i].probe_ns, __ATOMIC_ACQUIRE);
}

/* MACHTRACE_PROBE_COST set (the toolkit's latency scripts): that cost on
   err at the session's end */
static void
print_probe_cost(FILE *err, const struct mt_cb *cb)
{
	uint64_t fires, ns;

	mt_session_probe_cost(cb, &fires, &ns);
	fprintf(err, "machtrace: the tracer's own cost: %.3f ms in probe context, "
		"%llu probe firings: part of every time above\n", ns / 1e6,
		(unsigned long long)fires);
}

/* What must hold before enabling: -1 after saying why (the client's
   notices between the CPU and the rest, as dtrace orders them). */
static int
check(struct mt_session *s, struct mt_target *t, const struct mt_image *img,
      const struct mt_session_run *r)
{
	const struct mt_opts *opts = r->opts;
	char buf[1024];
	const char *why;

	/* -x cpu names the one CPU to trace on, of the target's (mt_target_ops.ncpus) */
	if (opts->cpu >= 0 && (uint64_t)opts->cpu >= img->opt.ncpus) {
		fprintf(s->err, "dtrace: could not enable tracing: -x cpu=%lld: "
			"no such CPU (the target has %u, numbered from 0)\n",
			(long long)opts->cpu, img->opt.ncpus);
		return -1;
	}
	if (r->client.matched)
		r->client.matched(r->client.arg, t);
	if (img->necbs == 0 && !opts->zdefs) {
		fprintf(s->err, "dtrace: no probes matched\n");
		return -1;
	}
	if ((why = mt_session_refused(img, t, buf, sizeof(buf))) != NULL) {
		fprintf(s->err, "dtrace: could not enable tracing: %s\n", why);
		return -1;
	}
	return 0;
}

/* Attach and the consumer: NULL after saying why (t detached). */
static struct mt_consumer *
enable(struct mt_session *s, const struct mt_prog *prog, struct mt_target *t,
       struct mt_image *img, const struct mt_session_run *r, FILE *out)
{
	struct mt_consumer *c;

	if (mt_session_fit_memory(r->opts, s->err, t, img) != 0)
		return NULL;
	if (t->ops->attach(t, img) != 0) {
		/* a VM's own state (another session, its deadman) is not
		   dtrace's message */
		if (s->live.vm && strncmp(mt_target_error(t), "vm ", 3) == 0)
			fprintf(s->err, "machtrace: %s\n", mt_target_error(t));
		else
			fprintf(s->err, "dtrace: could not enable tracing: %s\n",
				mt_target_error(t));
		return NULL;
	}
	if ((c = mt_consumer_new(prog, img, r->opts, t, out, s->err)) == NULL) {
		fprintf(s->err, "dtrace: failed to allocate the consumer\n");
		t->ops->detach(t);
	}
	return c;
}

/* BEGIN, the loop, END and the aggregations at the end (not with a
   client that takes them, nor after a second interrupt: stop now). */
static int
loop(struct mt_session *s, struct mt_target *t, struct mt_consumer *c,
     const struct mt_session_run *r, FILE *out)
{
	const struct mt_session_client *cl = &r->client;
	struct mt_session_work w = { r->opts, r->intr.count, out, cl->poll, cl->arg };
	int failed;

	r->intr.catch();
	failed = mt_session_work(s, t, c, &w);
	failed |= mt_session_stop(s, t, c, failed);
	if (*r->intr.count < 2 && cl->final)
		mt_consume_final(c);
	return failed;
}

int
mt_session_go(struct mt_session *s, const struct mt_prog *prog,
	      struct mt_target *t, struct mt_image *img,
	      const struct mt_session_run *r)
{
	const struct mt_session_client *cl = &r->client;
	struct mt_kernel_syms *ks = NULL;
	struct mt_consumer *c;
	FILE *out = r->out;
	const char *why;
	int status, failed, kernel = mt_session_wants_kernel(s, prog);

	if (check(s, t, img, r) != 0)
		return -1;
	if (r->ofile && (out = fopen(r->ofile, "a")) == NULL) {
		fprintf(s->err, "dtrace: failed to open output file '%s'\n", r->ofile);
		return -1;
	}
	if ((c = enable(s, prog, t, img, r, out)) == NULL) {
		failed = 1;
		goto out;
	}
	if (t->ops->sym == NULL && kernel)
		ks = mt_session_kernel_symbols(s->live.kernel, c);
	mt_consumer_attach(c, t->ops->cb(t));
	if (cl->start && cl->start(cl->arg, prog, img, t, c) != 0) {
		t->ops->detach(t);
		failed = 1;
		goto free;
	}
	if (r->opts->destructive && !r->opts->quiet)
		fprintf(s->err, "dtrace: allowing destructive actions\n");
	if (t->ops->begin(t) != 0) {
		fprintf(s->err, "dtrace: could not enable tracing: %s\n",
			mt_target_error(t));
		t->ops->detach(t);
		failed = 1;
		goto free;
	}
	failed = loop(s, t, c, r, out);
	if (getenv("MACHTRACE_PROBE_COST") && kernel)
		print_probe_cost(s->err, t->ops->cb(t));
	if (cl->finish && cl->finish(cl->arg, c, failed) != 0)
		failed = 1;
	status = mt_consumer_exited(c) ? mt_consumer_status(c) : 0;
	fflush(out);
	t->ops->detach(t);
	/* a kernel that stopped in KDB after the loop (while draining) */
	if (!failed && t->ops->aborted && (why = t->ops->aborted(t)) != NULL) {
		fprintf(s->err, "dtrace: processing aborted: %s\n", why);
		failed = 1;
	}
free:
	mt_consumer_free(c);
	mt_session_kernel_symbols_free(ks);
out:
	if (out != r->out)
		fclose(out);
	return failed ? -1 : status;
}
