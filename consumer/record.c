/*
 * Draining the principal buffers: records in timestamp order, each
 * through the output (c->o: textout.c or jsonout.c) from its start to its
 * end, its actions run by actions.c; runtime error records and the
 * consumer's life (new, attach, final, free).
 */
#include <stdlib.h>
#include <string.h>
#include "impl.h"

static const char *const fault_text[] = {
	[MT_FLT_NONE] = "no fault", [MT_FLT_BADADDR] = "invalid address",
	[MT_FLT_BADALIGN] = "invalid alignment",
	[MT_FLT_ILLOP] = "illegal operation",
	[MT_FLT_DIVZERO] = "divide-by-zero",
	[MT_FLT_NOSCRATCH] = "out of scratch space",
	[MT_FLT_KPRIV] = "invalid kernel access",
	[MT_FLT_UPRIV] = "invalid user access",
	[MT_FLT_TUPOFLOW] = "tuple stack overflow",
	[MT_FLT_BADSTACK] = "bad stack", [MT_FLT_BADSIZE] = "invalid size",
	[MT_FLT_BADINDEX] = "index out of bounds",
	[MT_FLT_LIBRARY] = "library-level fault",
};

struct mt_consumer *
mt_consumer_new(const struct mt_prog *prog, const struct mt_image *img,
		struct mt_opts *opts, struct mt_target *target, FILE *out,
		FILE *err)
{
	struct mt_consumer *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->prog = prog;
	c->img = img;
	c->opts = opts;
	c->target = target;
	c->out = c->orig_out = out;
	c->err = err;
	c->syms.target = target && (target->ops->sym || target->ops->usym) ?
			 target : NULL;
	c->o = opts->oformat == MT_OFORMAT_JSON ? &out_json : &out_text;
	if (agg_setup(c) != 0) {
		mt_consumer_free(c);
		return NULL;
	}
	return c;
}

void
mt_consumer_free(struct mt_consumer *c)
{
	if (c == NULL)
		return;
	c->o->finish(c, 0);	/* closes JSON's document if mt_consume_final()
				   was skipped */
	if (c->out != c->orig_out)
		fclose(c->out);
	agg_free(c);
	free(c->seen_drops);
	free(c->seen_stat);
	free(c);
}

void
mt_consumer_attach(struct mt_consumer *c, struct mt_cb *cb)
{
	c->cb = cb;
	c->ncpus = cb->ncpus;
	if (c->img->opt.ncpus && c->ncpus > c->img->opt.ncpus)
		c->ncpus = c->img->opt.ncpus;
	free(c->seen_drops);
	free(c->seen_stat);
	c->seen_drops = calloc(c->ncpus ? c->ncpus : 1, sizeof(uint64_t));
	c->seen_stat = calloc(c->ncpus ? c->ncpus : 1,
			      sizeof(struct mt_cpustat));
}

void
mt_consumer_set_rechook(struct mt_consumer *c, mt_rechook fn, void *arg)
{
	c->rechook = fn;
	c->rechook_arg = arg;
}

const struct mt_symsrc *
mt_consumer_symsrc(const struct mt_consumer *c)
{
	return &c->syms;
}

/* Actions whose only effect is printing the record's data. */
static int
prints_data(uint16_t kind)
{
	switch (kind) {
	case MT_ACT_TRACE: case MT_ACT_PRINTF: case MT_ACT_STACK:
	case MT_ACT_USTACK: case MT_ACT_TRACEMEM: case MT_ACT_PRINT:
	case MT_ACT_PRINTM: case MT_ACT_SYM: case MT_ACT_MOD:
	case MT_ACT_USYM: case MT_ACT_UMOD: case MT_ACT_UADDR:
		return 1;
	}
	return 0;
}

int mt_consumer_exited(const struct mt_consumer *c) { return c->exited; }
int mt_consumer_done(const struct mt_consumer *c) { return c->exited || c->filled; }
int mt_consumer_status(const struct mt_consumer *c) { return c->status; }
const char *mt_consumer_error(const struct mt_consumer *c) { return c->errmsg; }

/*
 * dtrace's words: the fault, its details and the DIF offset in bytes, the
 * ERROR probe's arg3.  Not illumos' " in action #N" / " in predicate":
 * dtrace-utils, whose tests the conformance suite runs, does not print it.
 */
static void
error_record(struct mt_consumer *c, const struct mt_rechdr *h,
	     const struct mt_errrec *e)
{
	const struct mt_ecb *ecb;
	const struct mt_probe *p = probe_of_epid(c, e->epid, &ecb);
	const char *ft = e->fault < sizeof(fault_text) / sizeof(*fault_text) &&
		fault_text[e->fault] ? fault_text[e->fault] : "unknown fault";
	char details[64] = "", msg[1024];
	uint32_t off = e->pc * (uint32_t)sizeof(mt_instr_t);

	if (e->fault == MT_FLT_BADADDR || e->fault == MT_FLT_BADALIGN ||
	    e->fault == MT_FLT_BADSTACK || e->fault == MT_FLT_BADSIZE)
		snprintf(details, sizeof(details), " (0x%llx)",
			 (unsigned long long)e->addr);
	else if (e->fault == MT_FLT_BADINDEX)	/* the index, signed */
		snprintf(details, sizeof(details), " (%lld)",
			 (long long)e->addr);
	if (p == NULL)
		snprintf(msg, sizeof(msg), "error on enabled probe ID %u: "
			 "%s%s at DIF offset %u", e->epid, ft, details, off);
	else
		snprintf(msg, sizeof(msg), "error on enabled probe ID %u (ID "
			 "%u: %s:%s:%s:%s): %s%s at DIF offset %u", e->epid,
			 p->id, img_str(c, p->prov), img_str(c, p->mod),
			 img_str(c, p->func), img_str(c, p->name), ft, details,
			 off);
	c->o->error(c, h, e, p, ft, off, msg);
	fflush(c->out);
	fprintf(c->err, "dtrace: %s\n", msg);
	fflush(c->err);
}

/*
 * A record of a clause that should not have run after exit() (dtrace's
 * draining state: only END's clauses run): one its CPU wrote after the
 * exit() record.  Another CPU's record stamped later still prints: its
 * firing was under way when exit() ran (the runtime lets none begin
 * after), and its aggregations counted it.
 */
static int
after_exit(const struct mt_consumer *c, const struct mt_rechdr *h,
	   const struct mt_probe *p)
{
	return c->exited && h->cpu == c->exit_cpu && h->timestamp > c->exit_ts && p &&
	       p->kind != MT_PK_END;
}

/*
 * Whether an if's then-branch ran.  The runtime records the condition
 * only when a branch records data; otherwise nothing the consumer does
 * depends on the branch taken, and it runs the then-branch's actions.
 */
static int
if_taken(const struct mt_consumer *c, const struct mt_action *a,
	 const uint8_t *data, uint32_t recsize)
{
	const struct mt_rec *r;

	if (a->nrecs == 0)
		return 1;
	r = &c->prog->recs[a->rec0];
	if (r->size != 1 || r->offset >= recsize)
		return 1;
	return data[r->offset] != 0;
}

/* Print one record; returns its total size, 0 if it cannot be decoded. */
static uint64_t
process_record(struct mt_consumer *c, const uint8_t *rec, uint64_t avail)
{
	const struct mt_rechdr *h = (const void *)rec;
	const uint8_t *data = rec + sizeof(*h);
	const struct mt_clause *cl;
	const struct mt_ecb *ecb;
	const struct mt_probe *p;
	uint64_t size;
	int recording = 0, cd_seen = 0;

	if (h->epid == MT_EPID_ERROR) {
		size = sizeof(*h) + sizeof(struct mt_errrec);
		const struct mt_errrec *e = (const void *)data;

		if (size <= avail && !after_exit(c, h, probe_of_epid(c, e->epid, &ecb)))
			error_record(c, h, e);
		return (size + 7) & ~7ULL;
	}
	if ((p = probe_of_epid(c, h->epid, &ecb)) == NULL ||
	    ecb->clause >= c->prog->nclauses)
		return 0;
	cl = &c->prog->clauses[ecb->clause];
	size = (sizeof(*h) + cl->recsize + 7) & ~7ULL;
	if (size > avail)
		return 0;
	if (after_exit(c, h, p))
		return size;
	/* dtrace-utils: a clause that only commits or discards (besides
	   recording nothing) is not data-recording: no prefix, no newline */
	for (uint32_t i = 0; i < cl->nacts; i++) {
		uint16_t k = c->prog->actions[cl->act0 + i].kind;
		if (k == MT_ACT_COMMIT || k == MT_ACT_DISCARD)
			cd_seen = 1;
		else if (k != MT_ACT_DIFEXPR && k != MT_ACT_AGG &&
			 k != MT_ACT_IF && k != MT_ACT_SKIP)
			recording = 1;
	}
	if (!cd_seen)
		recording = 1;
	if (c->rechook && recording)
		c->rechook(c->rechook_arg, h, p, ecb->clause, data);
	if (c->rechook)
		recording = 0;
	if (recording)
		c->o->rec_begin(c, h, h->epid, p);
	for (uint32_t i = 0; i < cl->nacts; i++) {
		const struct mt_action *a = &c->prog->actions[cl->act0 + i];

		if (a->kind == MT_ACT_SKIP || (a->kind == MT_ACT_IF &&
		    !if_taken(c, a, data, cl->recsize)))
			i += (uint32_t)a->arg;
		else if (!c->rechook || !prints_data(a->kind))
			do_action(c, h->epid, p, cl->act0 + i, data);
	}
	if (recording)
		c->o->rec_end(c);
	return size;
}

/*
 * One CPU's buffer being drained: [tail, head) as read at the start, so
 * records written meanwhile wait for the next drain.
 */
struct cursor {
	struct mt_cpubuf *b;
	const uint8_t *base;
	uint64_t tail, head;
	uint32_t cpu;
};

/* The cursor's next record (skipping padding), or NULL at its end. */
static const struct mt_rechdr *
cursor_peek(struct cursor *k)
{
	while (k->tail < k->head) {
		uint64_t off = k->tail % k->b->size;
		const struct mt_rechdr *h = (const void *)(k->base + off);

		if (k->b->size - off >= sizeof(*h) && h->epid != 0)
			return h;
		k->tail += k->b->size - off;
	}
	return NULL;
}

static int
cursor_open(struct mt_consumer *c, uint32_t cpu, struct cursor *k)
{
	struct mt_cpubuf *b = (struct mt_cpubuf *)((char *)c->cb +
			      c->cb->cpubuf_off) + cpu;

	if (b->size == 0)
		return 0;
	if (c->img->opt.bufpolicy == MT_BUFPOLICY_FILL && (b->filled || b->drops))
		c->filled = 1;
	if (c->img->opt.bufpolicy == MT_BUFPOLICY_RING &&
	    c->cb->state != MT_CB_STOPPED)
		return 0;
	k->b = b;
	k->base = (const uint8_t *)c->cb + b->data_off;
	k->head = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
	k->tail = b->tail;
	k->cpu = cpu;
	return 1;
}

/*
 * Drain every CPU's buffer, records merged in timestamp order (each CPU's
 * buffer is already in order), so that BEGIN's output comes first and
 * END's last however the CPUs interleaved.
 */
int
mt_consume(struct mt_consumer *c)
{
	struct cursor ks[64];
	uint32_t nk = 0;
	int rv = 0;

	if (c->cb == NULL)
		return 0;
	c->snap_valid = 0;	/* the next reader takes a fresh snapshot */
	for (uint32_t cpu = 0; cpu < c->ncpus && nk < 64; cpu++)
		nk += (uint32_t)cursor_open(c, cpu, &ks[nk]);
	for (;;) {
		const struct mt_rechdr *h, *best = NULL;
		struct cursor *bk = NULL;
		uint64_t n;

		for (uint32_t i = 0; i < nk; i++)
			if ((h = cursor_peek(&ks[i])) != NULL &&
			    (best == NULL || h->timestamp < best->timestamp)) {
				best = h;
				bk = &ks[i];
			}
		if (best == NULL)
			break;
		n = process_record(c, (const uint8_t *)best, bk->b->size -
				   (bk->tail % bk->b->size));
		if (n == 0) {
			snprintf(c->errmsg, sizeof(c->errmsg),
				 "bad record (EPID %u) in CPU %u's buffer",
				 best->epid, bk->cpu);
			bk->tail = bk->head;
			rv = -1;
			continue;
		}
		bk->tail += n;
	}
	for (uint32_t i = 0; i < nk; i++)
		__atomic_store_n(&ks[i].b->tail, ks[i].tail, __ATOMIC_RELEASE);
	fflush(c->out);
	return rv;
}

int
mt_consume_final(struct mt_consumer *c)
{
	c->o->finish(c, 1);
	return 0;
}
