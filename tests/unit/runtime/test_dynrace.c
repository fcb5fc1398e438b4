/*
 * Dynamic variables on several CPUs (runtime/dynvar.c): host threads, each
 * standing for one CPU (its own rt_cpu, stats and scratch, each operation
 * a firing between rt_epoch_enter and rt_epoch_exit), store, load and
 * delete elements of one global associative array at once: keys of their
 * own, whose values each checks against what it stored, and keys all of
 * them share, inserted and deleted in races.  Afterwards every chunk is in
 * exactly one place (a chain or one CPU's free, dirty or rinsing list), no
 * key is in the hash twice, and the drops counted are the stores the
 * threads saw fail.
 */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"
#include "runtime/rt.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#define NCPU		4
#define ROUNDS		200000
#define NOWN		16	/* keys of each thread's own */
#define NSHARED		8	/* keys every thread writes */

static struct rtrun R;
static uint32_t A;		/* a[int] = int */
static uint32_t started;	/* the racers wait for each other */
static uint32_t finished;

struct racer {
	uint32_t cpu;
	int64_t own[NOWN];	/* what a[own key] holds */
	long wrong, seen_drops, shared_drops, foreign;
};

static struct rt *RT(void)
{
	return rt_get(R.cb);
}

static uint64_t own_key(uint32_t cpu, uint32_t k)
{
	return ((uint64_t)(cpu + 1) << 32) | k;
}

/* One firing on cpu: a[key] = v (0 deletes) if store, then a[key]. */
static int64_t fire(struct rt_mstate *ms, uint64_t key, int store, int64_t v)
{
	int64_t got;

	rt_epoch_enter(ms->c);
	ms->scratch_used = 0;
	ms->tuple[0].val = key;
	ms->tuple[0].size = 8;
	ms->tuple[0].type = MT_TT_INT;
	ms->ttop = 1;
	if (store)
		rt_dyn_store(ms, MT_VS_GLOBAL, A, 0, (uint64_t)v);
	got = (int64_t)rt_dyn_load(ms, MT_VS_GLOBAL, A, 0);
	rt_epoch_exit(ms->c);
	return got;
}

static void *race(void *arg)
{
	struct racer *r = arg;
	struct rt *rt = RT();
	struct rt_mstate ms;
	static const struct mt_pctx ctx;
	uint64_t rnd = 0x2545f4914f6cdd1dull * (r->cpu + 1);

	__atomic_fetch_add(&started, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < NCPU)
		;
	memset(&ms, 0, sizeof(ms));
	ms.rt = rt;
	ms.cpu = r->cpu;
	ms.c = &rt->cpu[r->cpu];
	ms.stat = &rt->cpustat[r->cpu];
	ms.ctx = &ctx;
	for (long i = 0; i < ROUNDS; i++) {
		rnd ^= rnd << 13, rnd ^= rnd >> 7, rnd ^= rnd << 17;
		if (i % 2 == 1) {
			int64_t v = (rnd & 1) ? (int64_t)own_key(r->cpu, (uint32_t)i) : 0;
			uint64_t d0 = ms.stat->dynvar_drops;
			int64_t got = fire(&ms, 1000 + (rnd >> 8) % NSHARED, 1, v);
			uint64_t who = (uint64_t)got >> 32;

			r->shared_drops += (long)(ms.stat->dynvar_drops - d0);
			if (got && (who < 1 || who > NCPU))
				r->foreign++;
			continue;
		}
		uint32_t k = (uint32_t)(rnd >> 8) % NOWN;
		int64_t want = (rnd >> 20) % 8 == 0 ? 0 : r->own[k] + 1;
		int64_t got = fire(&ms, own_key(r->cpu, k), 1, want);

		if (got == 0 && want != 0) {	/* no chunk: a drop */
			r->seen_drops++;
			want = 0;
			/* another "CPU" was preempted inside a firing, which a
			   real one never is, so no chunk came clean: let it on */
			sched_yield();
		}
		if (ms.stat->dynvar_drops != (uint64_t)r->seen_drops + r->shared_drops)
			r->wrong++;
		if (got != want)
			r->wrong++;
		r->own[k] = want;
		if (fire(&ms, own_key(r->cpu, k), 0, 0) != want)
			r->wrong++;
	}
	__atomic_fetch_add(&finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static struct rt_dvar *chunk(struct rt *rt, uint32_t i)
{
	return (struct rt_dvar *)(rt->dyn + (uint64_t)(i - 1) * rt->dyn_chunksize);
}

/* Mark each chunk of a list in seen[]; -1 if one is there twice. */
static long mark_list(struct rt *rt, uint32_t i, uint8_t *seen)
{
	long n = 0;

	for (; i; i = chunk(rt, i)->link, n++)
		if (i > rt->dyn_nchunks || seen[i]++)
			return -1;
	return n;
}

TEST(cpus_race_on_one_array)
{
	struct ib b;
	struct racer r[NCPU];
	pthread_t th[NCPU];
	long wrong = 0, seen = 0, foreign = 0, drops = 0;

	ib_init(&b);
	b.opt.ncpus = NCPU;
	b.opt.dynvarsize = 13500;	/* some 128 chunks: the 72 keys and
					   a few dirty ones each */
	A = ib_var(&b, MT_VS_GLOBAL, MT_VK_ASSOC, 0, 8, 8);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	struct rt *rt = RT();
	CHECK_EQ_INT(rt->ncpus, NCPU);
	CHECK(rt->dyn_nchunks >= 120 && rt->dyn_nchunks <= 128);
	memset(r, 0, sizeof(r));
	started = finished = 0;
	for (uint32_t c = 0; c < NCPU; c++) {
		r[c].cpu = c;
		CHECK(pthread_create(&th[c], NULL, race, &r[c]) == 0);
	}
	/* a chain made into a loop keeps a racer walking for ever */
	for (int t = 0; t < 300 && __atomic_load_n(&finished, __ATOMIC_ACQUIRE) < NCPU; t++)
		usleep(100000);
	if (finished < NCPU) {
		printf("FAIL cpus_race_on_one_array: racers still running after 30 s\n");
		exit(1);
	}
	for (uint32_t c = 0; c < NCPU; c++) {
		pthread_join(th[c], NULL);
		wrong += r[c].wrong;
		seen += r[c].seen_drops + r[c].shared_drops;
		foreign += r[c].foreign;
		drops += (long)rt->cpustat[c].dynvar_drops;
	}
	printf("# %d CPUs x %d rounds: %ld wrong values, %ld foreign, "
	       "%ld drops seen, %ld counted\n", NCPU, ROUNDS, wrong, foreign,
	       seen, drops);
	CHECK_EQ_INT(wrong, 0);
	CHECK_EQ_INT(foreign, 0);
	CHECK_EQ_INT(drops, seen);

	/* every chunk in one place; the hash holds each key once */
	uint8_t seen_chunk[129] = { 0 };	/* chunk + 1 */
	long live = 0, lists = 0;
	for (uint32_t bk = 0; bk < rt->dyn_nbuckets; bk++) {
		for (uint32_t i = rt->dynhash[bk]; i; i = chunk(rt, i)->next) {
			CHECK(i <= rt->dyn_nchunks && !(i & RT_DV_MARK));
			CHECK(!seen_chunk[i]++);
			live++;
			for (uint32_t j = chunk(rt, i)->next; j; j = chunk(rt, j)->next)
				CHECK(chunk(rt, j)->keylen != chunk(rt, i)->keylen ||
				      memcmp(chunk(rt, j) + 1, chunk(rt, i) + 1,
					     chunk(rt, i)->keylen) != 0);
		}
	}
	for (uint32_t c = 0; c < NCPU; c++) {
		long f = mark_list(rt, rt->cpu[c].dyn_free, seen_chunk);
		long d = mark_list(rt, rt->cpu[c].dyn_dirty, seen_chunk);
		long s = mark_list(rt, rt->cpu[c].dyn_rinse, seen_chunk);
		CHECK(f >= 0 && d >= 0 && s >= 0);
		lists += f + d + s;
	}
	CHECK_EQ_INT(live + lists, rt->dyn_nchunks);
	/* each thread's own keys hold what it stored last */
	struct rt_mstate ms;
	static const struct mt_pctx ctx;
	memset(&ms, 0, sizeof(ms));
	ms.rt = rt;
	ms.c = &rt->cpu[0];
	ms.stat = &rt->cpustat[0];
	ms.ctx = &ctx;
	long present = 0;
	for (uint32_t c = 0; c < NCPU; c++)
		for (uint32_t k = 0; k < NOWN; k++) {
			CHECK_EQ_INT(fire(&ms, own_key(c, k), 0, 0), r[c].own[k]);
			present += r[c].own[k] != 0;
		}
	CHECK(live >= present && live <= present + NSHARED);
	rt_stop(&R);
}

MT_TEST_MAIN()
