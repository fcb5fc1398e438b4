/*
 * Scalar thread-locals (probe context): a row of values per thread, found
 * by a short bounded probe (see rt.h, "tls.c").  A load is a hash and a
 * compare or two; a store of 0 needs no row; only a thread's first
 * non-zero store takes one.
 */
#include "rt.h"

static uint64_t *row_at(const struct rt *rt, uint32_t i)
{
	return (uint64_t *)(rt->tls + (uint64_t)i * rt->tls_stride);
}

static int row_zero(const struct rt *rt, const uint64_t *row)
{
	for (uint32_t c = 1; c <= rt->tls_ncols; c++)
		if (row[c])
			return 0;
	return 1;
}

/*
 * Several CPUs: a row is taken by a compare-and-swap of its thread word
 * from 0 (free) and given back by its own thread when a store of 0 leaves
 * it all zero (rt_tls_release), so a row is only ever written by the
 * thread whose word it holds, and two CPUs never take the same row.  One
 * CPU: an all-zero row of any thread may be taken over (compiled code
 * stores 0 without giving rows back).
 */
static int row_take(const struct rt *rt, uint64_t *row, uint64_t key)
{
	uint64_t seen = row[0];

	if (rt->ncpus <= 1) {
		if (seen != 0 && !row_zero(rt, row))
			return 0;
		row[0] = key;
		return 1;
	}
	seen = 0;
	return __atomic_compare_exchange_n(&row[0], &seen, key, 0, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED);
}

/*
 * The row of thread: a match anywhere in the window wins; else, with
 * create, the first row of the window row_take() gets (its values are 0
 * already).  stat gets the drop.
 */
static int64_t *tls_find(struct rt *rt, uint64_t thread, int create,
			 struct mt_cpustat *stat)
{
	uint64_t key = thread ? thread : RT_TLS_THREAD0;
	uint32_t mask = rt->tls_nrows - 1, h;
	uint64_t *row;

	if (rt->tls_nrows == 0)
		goto full;
	h = mt_tls_hash(key);
	for (uint32_t k = 0; k < MT_TLS_PROBE; k++) {
		row = row_at(rt, (h + k) & mask);
		if (__atomic_load_n(&row[0], __ATOMIC_ACQUIRE) == key)
			return (int64_t *)row + 1;
	}
	if (!create)
		return 0;
	for (uint32_t k = 0; k < MT_TLS_PROBE; k++)
		if (row_take(rt, (row = row_at(rt, (h + k) & mask)), key))
			return (int64_t *)row + 1;
full:
	if (create && stat)
		stat->dynvar_drops++;
	return 0;
}

int64_t *rt_tls_row(struct rt *rt, uint64_t thread, int create)
{
	uint32_t cpu = mt_plat_cpu();

	return tls_find(rt, thread, create,
			cpu < rt->ncpus ? &rt->cpustat[cpu] : 0);
}

int64_t *rt_tls_ref(struct rt_mstate *ms, const struct rt_varslot *sl,
		    int create)
{
	int64_t *row;

	row = tls_find(ms->rt, rt_tid(ms), create, ms->stat);
	return row ? row + sl->off : 0;
}

void rt_tls_release(struct rt *rt, int64_t *vals)
{
	uint64_t *row = (uint64_t *)vals - 1;

	if (rt->ncpus > 1 && row_zero(rt, row))
		__atomic_store_n(&row[0], 0, __ATOMIC_RELEASE);
}
