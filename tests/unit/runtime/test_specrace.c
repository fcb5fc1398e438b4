/*
 * Speculations on several CPUs (runtime/buf.c): two host threads, each
 * standing for a CPU, append records to speculation 1 while a third, CPU
 * 0, takes it with speculation() and commits it again and again, reading
 * what lands in its principal buffer.  Every record an append accepted is
 * committed exactly once, whole, and in its CPU's order.
 */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"
#include "runtime/rt.h"

#include <pthread.h>
#include <sched.h>

#define NW		2	/* writing CPUs 1..NW; CPU 0 commits */
#define ROUNDS		200000

static struct rtrun R;
static uint32_t writing;	/* writers not finished */
static uint8_t seen[NW + 1][ROUNDS];

struct writer {
	uint32_t cpu;
	long put;
};

static void ms_for(struct rt_mstate *ms, uint32_t cpu)
{
	struct rt *rt = rt_get(R.cb);

	memset(ms, 0, sizeof(*ms));
	ms->rt = rt;
	ms->cpu = cpu;
	ms->c = &rt->cpu[cpu];
	ms->stat = &rt->cpustat[cpu];
}

static void *write_spec(void *arg)
{
	struct writer *w = arg;
	struct rt_mstate ms;
	uint64_t rec[3];

	ms_for(&ms, w->cpu);
	for (uint32_t i = 0; i < ROUNDS; i++) {
		struct mt_rechdr *h = (struct mt_rechdr *)rec;

		h->epid = 1;
		h->cpu = w->cpu;
		h->timestamp = i;
		rec[2] = ((uint64_t)w->cpu << 32) | i;
		if (rt_spec_put(&ms, 1, rec, sizeof(rec)) == 0)
			w->put++;
		else
			sched_yield();	/* let the committer on */
	}
	__atomic_fetch_sub(&writing, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* CPU 0's principal buffer, consumed: bad counts a record not whole,
   seen twice or out of its CPU's order. */
static long drain(long *got, long *bad, int64_t last[])
{
	struct mt_cpubuf *b = rt_buf(&R);
	uint8_t *data = (uint8_t *)R.cb + b->data_off;
	uint64_t pos = b->tail;

	while (pos < b->head) {
		uint64_t *r = (uint64_t *)(data + pos % b->size);
		struct mt_rechdr *h = (struct mt_rechdr *)r;
		uint32_t w = h->cpu, i = (uint32_t)h->timestamp;

		if (h->epid == 0) {
			pos += b->size - pos % b->size;
			continue;
		}
		if (h->epid != 1 || w < 1 || w > NW || i >= ROUNDS ||
		    r[2] != (((uint64_t)w << 32) | i) || seen[w][i]++ ||
		    (int64_t)i <= last[w])
			(*bad)++;
		else
			last[w] = i;
		(*got)++;
		pos += 24;
	}
	b->tail = pos;
	return 0;
}

TEST(commit_while_cpus_speculate)
{
	struct ib b;
	struct writer w[NW + 1];
	pthread_t th[NW + 1];
	struct rt_mstate ms;
	long got = 0, bad = 0, put = 0, commits = 0;
	int64_t last[NW + 1];

	ib_init(&b);
	b.opt.ncpus = NW + 1;
	b.opt.bufsize = 1 << 16;
	b.opt.specsize = 4096;
	uint32_t a0 = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1), R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, a0, MT_REC_INT, 0, 8, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	CHECK_EQ_INT(mt_rt_recsize(R.img, 1), 24);
	ms_for(&ms, 0);
	CHECK_EQ_INT(rt_speculation(&ms), 1);
	memset(seen, 0, sizeof(seen));
	for (int k = 0; k <= NW; k++)
		last[k] = -1;
	writing = NW;
	for (uint32_t c = 1; c <= NW; c++) {
		w[c].cpu = c;
		w[c].put = 0;
		CHECK(pthread_create(&th[c], NULL, write_spec, &w[c]) == 0);
	}
	while (__atomic_load_n(&writing, __ATOMIC_ACQUIRE)) {
		rt_spec_commit(&ms, 1, 0);
		drain(&got, &bad, last);
		commits++;
		CHECK_EQ_INT(rt_speculation(&ms), 1);
	}
	for (uint32_t c = 1; c <= NW; c++) {
		pthread_join(th[c], NULL);
		put += w[c].put;
	}
	rt_spec_commit(&ms, 1, 0);
	drain(&got, &bad, last);
	struct rt *rt = rt_get(R.cb);
	long drops = 0;
	for (uint32_t c = 0; c <= NW; c++)
		drops += (long)rt->cpustat[c].spec_drops;
	printf("# %d CPUs x %d appends: %ld accepted, %ld committed in %ld "
	       "commits, %ld bad, %ld full drops\n", NW, ROUNDS, put, got,
	       commits, bad, drops);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(got, put);
	CHECK_EQ_INT(rt_buf(&R)->drops, 0);
	rt_stop(&R);
}

MT_TEST_MAIN()
