/*
 * Scalar thread-locals in a row per thread (runtime/tls.c): set, get,
 * store-0 as delete, reuse of all-zero rows, the full table's drop count,
 * many threads, the sizing from dynvarsize, the interpreter's LDTS/STTS
 * on the rows (by-reference thread-locals stay in dynvar), and two CPUs
 * (host threads) taking and giving back rows of one window at once.
 */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"
#include "runtime/rt.h"

#include <pthread.h>

static struct rtrun R;
static uint32_t T, U, S;	/* self->t, self->u (scalars), self->s (string) */

/*
 * BEGIN clause 1: self->t = arg0; self->u = arg0 * 2 (0 deletes both);
 * self->s = "x" when arg0 is odd.  BEGIN clause 2: trace(self->t),
 * trace(self->u).  A global assoc a[] shares dynvarsize when `assoc`.
 */
static int setup_cpus(uint64_t dynvarsize, int assoc, uint32_t ncpus)
{
	struct ib b;

	ib_init(&b);
	b.opt.dynvarsize = dynvarsize;
	b.opt.ncpus = ncpus;
	T = ib_var(&b, MT_VS_THREAD, MT_VK_SCALAR, 0, 8, 0);
	S = ib_var(&b, MT_VS_THREAD, MT_VK_SCALAR, MT_VF_REF | MT_VF_STRING, 32, 0);
	U = ib_var(&b, MT_VS_THREAD, MT_VK_SCALAR, 0, 8, 0);
	if (assoc)
		ib_var(&b, MT_VS_GLOBAL, MT_VK_ASSOC, 0, 8, 8);
	uint32_t st = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			      RV(STTS, T, 1), R(ADD, 1, 1, 2), RV(STTS, U, 2),
			      R(RET, 0, 0, 0));
	uint32_t lt = IB_DIFO(&b, MT_RT_INT, RV(LDTS, T, 1), R(RET, 0, 0, 1));
	uint32_t lu = IB_DIFO(&b, MT_RT_INT, RV(LDTS, U, 1), R(RET, 0, 0, 1));
	ib_store_then_trace2(&b, st, lt, lu);
	return rt_start(&R, &b);
}

static int setup(uint64_t dynvarsize, int assoc)
{
	return setup_cpus(dynvarsize, assoc, 1);
}

static int64_t last(int field)
{
	int n = rt_nrecs(&R);
	return ((int64_t *)rt_data(rt_rec(&R, n - 1)))[field];
}

static struct rt *RT(void)
{
	return rt_get(R.cb);
}

static uint64_t my_tid(void)
{
	return mt_plat_var(0, MT_VAR_TID);
}

TEST(set_get_delete)
{
	CHECK_EQ_INT(setup(4096, 0), 0);
	rt_fire(&R, 0, 21);
	CHECK_EQ_INT(last(0), 21);
	CHECK_EQ_INT(last(1), 42);
	rt_fire(&R, 0, 5);
	CHECK_EQ_INT(last(0), 5);
	CHECK_EQ_INT(last(1), 10);
	/* the values are in this thread's row, columns in vars[] order */
	int64_t *row = rt_tls_row(RT(), my_tid(), 0);
	CHECK(row != NULL);
	CHECK_EQ_INT(row[0], 5);
	CHECK_EQ_INT(row[1], 10);
	CHECK_EQ_INT(mt_tls_column(R.img, T, 0), 0);
	CHECK_EQ_INT(mt_tls_column(R.img, U, 0), 1);
	CHECK_EQ_INT(mt_tls_column(R.img, S, 0), -1);
	/* storing 0 deletes: loads give 0, the row is all zero */
	rt_fire(&R, 0, 0);
	CHECK_EQ_INT(last(0), 0);
	CHECK_EQ_INT(last(1), 0);
	CHECK_EQ_INT(row[0], 0);
	CHECK_EQ_INT(row[1], 0);
	/* no dynamic variable chunk was taken for them */
	CHECK_EQ_INT(RT()->cpu[0].dyn_free, 1);
	CHECK_EQ_INT(rt_stat(&R)->dynvar_drops, 0);
	rt_stop(&R);
}

TEST(store_zero_takes_no_row)
{
	CHECK_EQ_INT(setup(4096, 0), 0);
	rt_fire(&R, 0, 0);
	CHECK_EQ_INT(last(0), 0);
	CHECK(rt_tls_row(RT(), my_tid(), 0) == NULL);
	CHECK_EQ_INT(rt_stat(&R)->dynvar_drops, 0);
	rt_stop(&R);
}

TEST(sizing_from_dynvarsize)
{
	/* two columns (rows of 24 bytes) and self->s in dynamic variable
	   space: the rows get 2/3 of 12000, 8000 / 24 = 333 -> 256 rows */
	CHECK_EQ_INT(setup(12000, 0), 0);
	CHECK_EQ_INT(RT()->tls_ncols, 2);
	CHECK_EQ_INT(RT()->tls_stride, 24);
	CHECK_EQ_INT(RT()->tls_nrows, 256);
	rt_stop(&R);
	/* with a[] too, 2/4: 6000 / 24 = 250 -> 128 rows */
	CHECK_EQ_INT(setup(12000, 1), 0);
	CHECK_EQ_INT(RT()->tls_nrows, 128);
	rt_stop(&R);
	/* a tiny dynvarsize still holds RT_TLS_MINROWS rows */
	CHECK_EQ_INT(setup(15, 0), 0);
	CHECK_EQ_INT(RT()->tls_nrows, RT_TLS_MINROWS);
	rt_stop(&R);
}

TEST(many_threads)
{
	/* 1 MB, 2/3 of it: 16384 rows; 2000 threads keep their values */
	CHECK_EQ_INT(setup(1 << 20, 0), 0);
	struct rt *rt = RT();
	CHECK_EQ_INT(rt->tls_nrows, 1 << 14);
	for (uint64_t th = 1; th <= 2000; th++) {
		int64_t *row = rt_tls_row(rt, th * 0x1000, 1);
		CHECK(row != NULL);
		row[0] = (int64_t)th;
		row[1] = -(int64_t)th;
	}
	for (uint64_t th = 1; th <= 2000; th++) {
		int64_t *row = rt_tls_row(rt, th * 0x1000, 0);
		CHECK(row != NULL);
		CHECK_EQ_INT(row[0], th);
		CHECK_EQ_INT(row[1], -(int64_t)th);
	}
	CHECK(rt_tls_row(rt, 2001 * 0x1000, 0) == NULL);
	/* thread 0 has a row of its own, not a free one */
	int64_t *z = rt_tls_row(rt, 0, 1);
	CHECK(z != NULL);
	z[0] = 7;
	CHECK(rt_tls_row(rt, 0, 0) == z);
	CHECK_EQ_INT(rt_stat(&R)->dynvar_drops, 0);
	rt_stop(&R);
}

TEST(full_table_drops_and_reuse)
{
	CHECK_EQ_INT(setup(15, 0), 0);	/* 16 rows */
	struct rt *rt = RT();
	uint64_t got[64], ngot = 0, drops = 0;

	/* the interpreter's thread first, then 64 others: each thread's
	   window is 8 of the 16 rows, so the table fills and the rest drop */
	rt_fire(&R, 0, 3);
	for (uint64_t th = 100; th < 164; th++) {
		int64_t *row = rt_tls_row(rt, th, 1);
		if (row) {
			row[0] = 1;
			got[ngot++] = th;
		} else {
			drops++;
		}
	}
	CHECK_EQ_INT(ngot, 15);
	CHECK_EQ_INT(drops, 64 - 15);
	CHECK_EQ_INT(rt_stat(&R)->dynvar_drops, drops);
	/* a load of a thread without a row is no drop */
	CHECK(rt_tls_row(rt, 999, 0) == NULL);
	CHECK_EQ_INT(rt_stat(&R)->dynvar_drops, drops);
	/* the interpreter's thread kept its values */
	rt_fire(&R, 0, 0);		/* its row now all zero: deleted */
	CHECK_EQ_INT(last(0), 0);
	/* so another thread may take that row; the first finds none */
	int64_t *row = rt_tls_row(rt, 164, 1);
	int found = 0;
	for (uint64_t th = 165; !row && th < 400; th++)
		row = rt_tls_row(rt, th, 1);
	CHECK(row != NULL);
	row[0] = 9;
	CHECK(rt_tls_row(rt, my_tid(), 0) == NULL);
	/* a zeroed row of the others is reusable too */
	int64_t *old = rt_tls_row(rt, got[0], 0);
	CHECK(old != NULL);
	old[0] = 0;
	for (uint64_t th = 400; th < 2000 && !found; th++) {
		int64_t *r2 = rt_tls_row(rt, th, 1);
		if (r2 == old)
			found = 1;
	}
	CHECK(found);
	CHECK(rt_tls_row(rt, got[0], 0) == NULL);
	/* the interpreter's own store when its window is full: a drop, and
	   its loads give 0 */
	uint64_t before = rt_stat(&R)->dynvar_drops;
	for (uint64_t th = 2000; th < 4000; th++) {
		int64_t *r3 = rt_tls_row(rt, th, 1);
		if (r3)
			r3[1] = 1;
	}
	before = rt_stat(&R)->dynvar_drops;
	rt_fire(&R, 0, 11);
	CHECK_EQ_INT(last(0), 0);
	CHECK_EQ_INT(rt_stat(&R)->dynvar_drops, before + 2);	/* t and u */
	rt_stop(&R);
}

MT_TEST_MAIN()

/*
 * Two CPUs: each host thread stands for a CPU running its own guest
 * threads, whose keys all fall in one window of MT_TLS_PROBE rows; each
 * takes a row, writes its key in both columns, checks that nobody else
 * wrote there, stores 0 and gives the row back.  A row taken by both
 * (or taken over while its thread was writing) shows as a foreign value.
 */
#define RACE_ROUNDS	200000
struct racer {
	uint64_t key0;
	long bad, drops;
};

static uint64_t same_window_key(uint64_t from)
{
	uint64_t h0 = mt_tls_hash(0x1000);

	while ((mt_tls_hash(from) & (RT()->tls_nrows - 1)) != (h0 & (RT()->tls_nrows - 1)))
		from++;
	return from;
}

static void *race(void *arg)
{
	struct racer *r = arg;
	struct rt *rt = RT();

	for (long i = 0; i < RACE_ROUNDS; i++) {
		uint64_t key = r->key0;
		int64_t *row = rt_tls_row(rt, key, 1);

		if (!row) {
			r->drops++;
			continue;
		}
		__atomic_store_n(&row[0], (int64_t)key, __ATOMIC_RELAXED);
		__atomic_store_n(&row[1], (int64_t)key, __ATOMIC_RELAXED);
		for (int k = 0; k < 20; k++)
			__asm__ volatile("" ::: "memory");
		if (__atomic_load_n(&row[0], __ATOMIC_RELAXED) != (int64_t)key ||
		    __atomic_load_n(&row[1], __ATOMIC_RELAXED) != (int64_t)key ||
		    rt_tls_row(rt, key, 0) != row)
			r->bad++;
		__atomic_store_n(&row[0], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&row[1], 0, __ATOMIC_RELAXED);
		rt_tls_release(rt, row);
	}
	return NULL;
}

TEST(two_cpus_never_share_a_row)
{
	struct racer r[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	pthread_t th;

	CHECK_EQ_INT(setup_cpus(4096, 0, 2), 0);
	CHECK_EQ_INT(RT()->ncpus, 2);
	r[0].key0 = same_window_key(0x1000);
	r[1].key0 = same_window_key(r[0].key0 + 1);
	CHECK(pthread_create(&th, NULL, race, &r[1]) == 0);
	race(&r[0]);
	pthread_join(th, NULL);
	printf("# foreign values %ld and %ld, no row %ld and %ld in %d rounds each\n",
	       r[0].bad, r[1].bad, r[0].drops, r[1].drops, RACE_ROUNDS);
	CHECK_EQ_INT(r[0].bad + r[1].bad, 0);
	CHECK_EQ_INT(r[0].drops + r[1].drops, 0);
	/* every row given back */
	CHECK(rt_tls_row(RT(), r[0].key0, 0) == NULL);
	CHECK(rt_tls_row(RT(), r[1].key0, 0) == NULL);
	rt_stop(&R);
}
