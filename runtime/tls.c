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
 * The row of thread: a match anywhere in the window wins; else, with
 * create, the first free or all-zero row in the window is taken (its
 * values are 0 already).  stat gets the drop.
 */
static int64_t *tls_find(struct rt *rt, uint64_t thread, int create,
			 struct mt_cpustat *stat)
{
	uint64_t key = thread ? thread : RT_TLS_THREAD0;
	uint32_t mask = rt->tls_nrows - 1, h, take = RT_NOSLOT;
	uint64_t *row;

	if (rt->tls_nrows == 0)
		goto full;
	h = mt_tls_hash(key);
	for (uint32_t k = 0; k < MT_TLS_PROBE; k++) {
		row = row_at(rt, (h + k) & mask);
		if (row[0] == key)
			return (int64_t *)row + 1;
		if (create && take == RT_NOSLOT &&
		    (row[0] == 0 || row_zero(rt, row)))
			take = (h + k) & mask;
	}
	if (!create)
		return 0;
	if (take != RT_NOSLOT) {
		row = row_at(rt, take);
		row[0] = key;
		return (int64_t *)row + 1;
	}
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
