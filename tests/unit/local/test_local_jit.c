/*
 * Compiled probes on the local target (targets/local/jit.c): each
 * program runs twice, compiled and with MACHTRACE_NOJIT=1 (the
 * interpreter), BEGIN and END fired alternately with the same
 * arguments.  Every firing of the first must run compiled code; the
 * principal buffer (timestamps aside) and the aggregation data must be
 * the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>

#include "../mt_test.h"
#include "../dimage.h"
#include "machtrace/compiler.h"
#include "machtrace/jitabi.h"
#include "machtrace/options.h"
#include "machtrace/program.h"
#include "machtrace/runtime.h"

#define FIRINGS 300

struct run {
	struct mt_target *t;
	struct mt_cb *cb;
	int compiled;			/* firings the compiled code ran */
};

static struct mt_image *image(const char *src, struct mt_target *t)
{
	return mt_test_dimage(src, NULL, t);
}

static void fire(struct run *r, uint32_t id, const uint64_t *args)
{
	int pi = mt_rt_probe_index(r->cb, id);

	if (pi >= 0)
		r->compiled += mt_local_fire(r->t, (uint32_t)pi, args) == 0;
}

/* Run src on a new local target; 0, or -1. */
static int run(struct run *r, const char *src, int nojit)
{
	struct mt_image *img;

	memset(r, 0, sizeof *r);
	if (nojit)
		setenv("MACHTRACE_NOJIT", "1", 1);
	else
		unsetenv("MACHTRACE_NOJIT");
	r->t = mt_local_target_new();
	if (!r->t || !(img = image(src, r->t)))
		return -1;
	if (r->t->ops->attach(r->t, img) != 0) {
		free(img);
		return -1;
	}
	free(img);
	r->cb = r->t->ops->cb(r->t);
	for (uint64_t i = 0; i < FIRINGS; i++) {
		uint64_t args[MT_NARGS] = { i * 2654435761u >> 7, i, i * 3 };
		fire(r, MT_PROBE_BEGIN, args);
		fire(r, MT_PROBE_END, args);
	}
	return 0;
}

static void *at(struct run *r, uint32_t kind)
{
	return (void *)(uintptr_t)mt_rt_jit_addr(r->cb, kind, 0);
}

/* The records written, their timestamps zeroed; their length. */
static uint64_t records(struct run *r)
{
	const struct mt_image *img = mt_rt_image(r->cb);
	struct mt_cpubuf *cb = at(r, MT_JR_CPUBUF);
	uint8_t *data = at(r, MT_JR_BUFDATA);
	uint64_t off = 0;
	uint32_t n;

	while (off + sizeof(struct mt_rechdr) <= cb->head &&
	       (n = mt_rt_recsize(img, ((struct mt_rechdr *)(data + off))->epid)) != 0) {
		((struct mt_rechdr *)(data + off))->timestamp = 0;
		off += n;
	}
	return cb->head;
}

/*
 * The aggregation entries with their gen zeroed (a compiled update bumps
 * it once more than the interpreter on an entry's first update: it only
 * tells the consumer's snapshot that the entry changed); their bytes.
 */
static uint64_t aggs(struct run *r)
{
	const struct mt_image *img = mt_rt_image(r->cb);
	const struct mt_agg *ag = (const void *)((const uint8_t *)img + img->aggs_off);
	const struct mt_aggbuf *ab = (const void *)((uint8_t *)r->cb + r->cb->aggbuf_off);
	uint8_t *data = at(r, MT_JR_AGGDATA);
	uint64_t off = 0;

	while (off + sizeof(struct mt_aggent) <= ab->used) {
		struct mt_aggent *e = (void *)(data + off);
		if (e->aggid == 0 || e->aggid > img->naggs)
			break;
		e->gen = 0;
		off += sizeof *e + ag[e->aggid - 1].keysize + 8 * ag[e->aggid - 1].nvals;
	}
	return ab->used;
}

/* Compiled and interpreted runs of src leave the same state; all: every
   firing of the first is compiled (else, after exit(), the code's guard
   leaves the firings to the interpreter). */
static int same_as(const char *src, int all)
{
	struct run c = { 0 }, i = { 0 };
	int ok = 0;

	if (run(&c, src, 0) == 0 && run(&i, src, 1) == 0) {
		uint64_t aggsize = aggs(&c), len = records(&c);
		int want = strstr(src, "END") ? 2 * FIRINGS : FIRINGS;
		ok = (all ? c.compiled == want : c.compiled > 0) && i.compiled == 0 &&
			c.cb->state == i.cb->state && c.cb->exit_status == i.cb->exit_status && len == records(&i) &&
			memcmp(at(&c, MT_JR_BUFDATA), at(&i, MT_JR_BUFDATA), len) == 0 &&
			aggsize == aggs(&i) &&
			memcmp(at(&c, MT_JR_AGGDATA), at(&i, MT_JR_AGGDATA), aggsize) == 0 &&
			c.cb->nfirings == i.cb->nfirings;
		if (!ok)
			printf("# %s: compiled firings %d, records %llu\n", src, c.compiled,
			       (unsigned long long)len);
	}
	if (c.t)
		mt_target_free(c.t);
	if (i.t)
		mt_target_free(i.t);
	unsetenv("MACHTRACE_NOJIT");
	return ok;
}

static int same(const char *src)
{
	return same_as(src, 1);
}

TEST(local_jit_count)
{
	CHECK(same("BEGIN { @ = count(); }"));
}

TEST(local_jit_predicate)
{
	CHECK(same("BEGIN /(arg0 & 3) == 1/ { @ = count(); } END /arg1 > 100/ { @b = count(); }"));
}

TEST(local_jit_keys)
{
	CHECK(same("BEGIN { @[arg1 & 7] = count(); @e[execname] = count(); "
		   "@f[probefunc] = count(); @n[probename] = sum(arg1); }"));
}

TEST(local_jit_execname_predicate)
{
	CHECK(same("BEGIN /execname == \"test_local_jit\"/ { @ = count(); }"));
}

TEST(local_jit_records)
{
	CHECK(same("BEGIN { trace(arg0); } END { printf(\"%d %d\\n\", arg0, arg1); }"));
}

TEST(local_jit_aggregations)
{
	CHECK(same("BEGIN { @s = sum(arg0); @mi = min(arg0); @ma = max(arg0); "
		   "@q = quantize(arg0); } END { @m = min(arg1 - 100); @x = quantize(-arg2); }"));
}

TEST(local_jit_globals)
{
	CHECK(same("int x; BEGIN { x = x + arg1; } END { @ = sum(x); @c[x & 3] = count(); }"));
}

TEST(local_jit_thread_locals)
{
	CHECK(same("BEGIN { self->a = arg1; } END /self->a & 1/ { @ = sum(self->a); "
		   "self->a = 0; }"));
}

/* Timestamps differ between runs: only what does not depend on them. */
TEST(local_jit_timestamps)
{
	CHECK(same("BEGIN { self->ts = timestamp; } END /self->ts/ { "
		   "@ = quantize(timestamp - self->ts >= 0); @n = count(); self->ts = 0; }"));
}

/* exit() as a clause's last action: the status, and later clauses of
   the probe (not END's) skipped, as the interpreter drains. */
TEST(local_jit_exit)
{
	CHECK(same_as("BEGIN { @ = count(); } BEGIN /arg1 == 7/ { trace(arg0); exit(arg1 - 9); } "
		      "BEGIN { @b = count(); } END { @e = count(); }", 0));
}

MT_TEST_MAIN()
