/*
 * A D program run on the local target, compiled (targets/local/jit.c) or
 * interpreted (MACHTRACE_NOJIT=1), BEGIN and END fired alternately with
 * the same arguments; the two runs' state compared.  Shared by
 * tests/unit/local/test_local_jit.c and tests/fuzz/fuzz_run.c.
 */
#ifndef MT_TEST_LOCALRUN_H
#define MT_TEST_LOCALRUN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dimage.h"
#include "machtrace/jitabi.h"
#include "machtrace/runtime.h"

struct mt_lrun {
	struct mt_target *t;
	struct mt_cb *cb;
	int compiled;			/* firings the compiled code ran */
};

static inline void mt_lrun_fire(struct mt_lrun *r, uint32_t id, const uint64_t *args)
{
	int pi = mt_rt_probe_index(r->cb, id);

	if (pi >= 0)
		r->compiled += mt_local_fire(r->t, (uint32_t)pi, args) == 0;
}

/* Run src on a new local target, firings times each probe; 0, or -1
   (r->t, if set, is the caller's to free). */
static inline int mt_lrun(struct mt_lrun *r, const char *src, int nojit, int firings)
{
	struct mt_image *img;

	memset(r, 0, sizeof *r);
	if (nojit)
		setenv("MACHTRACE_NOJIT", "1", 1);
	else
		unsetenv("MACHTRACE_NOJIT");
	r->t = mt_local_target_new();
	if (!r->t || !(img = mt_test_dimage(src, NULL, r->t)))
		return -1;
	if (r->t->ops->attach(r->t, img) != 0) {
		free(img);
		return -1;
	}
	free(img);
	r->cb = r->t->ops->cb(r->t);
	for (uint64_t i = 0; i < (uint64_t)firings; i++) {
		uint64_t args[MT_NARGS] = { i * 2654435761u >> 7, i, i * 3 };
		mt_lrun_fire(r, MT_PROBE_BEGIN, args);
		mt_lrun_fire(r, MT_PROBE_END, args);
	}
	return 0;
}

static inline void *mt_lrun_at(struct mt_lrun *r, uint32_t kind)
{
	return (void *)(uintptr_t)mt_rt_jit_addr(r->cb, kind, 0, 0);
}

/* The records written, their timestamps zeroed; their length. */
static inline uint64_t mt_lrun_records(struct mt_lrun *r)
{
	const struct mt_image *img = mt_rt_image(r->cb);
	struct mt_cpubuf *cb = mt_lrun_at(r, MT_JR_CPUBUF);
	uint8_t *data = mt_lrun_at(r, MT_JR_BUFDATA);
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
static inline uint64_t mt_lrun_aggs(struct mt_lrun *r)
{
	const struct mt_image *img = mt_rt_image(r->cb);
	const struct mt_agg *ag = (const void *)((const uint8_t *)img + img->aggs_off);
	const struct mt_aggbuf *ab = (const void *)((uint8_t *)r->cb + r->cb->aggbuf_off);
	uint8_t *data = mt_lrun_at(r, MT_JR_AGGDATA);
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

/* Do the compiled run c and the interpreted run i leave the same state? */
static inline int mt_lrun_same(struct mt_lrun *c, struct mt_lrun *i)
{
	uint64_t aggsize = mt_lrun_aggs(c), len = mt_lrun_records(c);

	return c->cb->state == i->cb->state && c->cb->exit_status == i->cb->exit_status &&
		len == mt_lrun_records(i) &&
		memcmp(mt_lrun_at(c, MT_JR_BUFDATA), mt_lrun_at(i, MT_JR_BUFDATA), len) == 0 &&
		aggsize == mt_lrun_aggs(i) &&
		memcmp(mt_lrun_at(c, MT_JR_AGGDATA), mt_lrun_at(i, MT_JR_AGGDATA), aggsize) == 0 &&
		c->cb->nfirings == i->cb->nfirings;
}

#endif
