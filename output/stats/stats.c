/*
 * Statistics over measured samples (include/machtrace/stats.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "machtrace/stats.h"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void
mt_stats_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double
mt_quantile_sorted(const double *sorted, size_t n, double q)
{
	double h, f;
	size_t i;

	if (n == 0)
		return NAN;
	if (q <= 0)
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	h = (double)(n - 1) * q;
	f = floor(h);
	i = (size_t)f;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (h - f) * (sorted[i + 1] - sorted[i]);
}

static double *
sorted_copy(const double *v, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(*c));

	if (c == NULL)
		return NULL;
	memcpy(c, v, n * sizeof(*c));
	mt_stats_sort(c, n);
	return c;
}

double
mt_quantile(const double *v, size_t n, double q)
{
	double *c, r;

	if (n == 0 || (c = sorted_copy(v, n)) == NULL)
		return NAN;
	r = mt_quantile_sorted(c, n, q);
	free(c);
	return r;
}

double
mt_median(const double *v, size_t n)
{
	return mt_quantile(v, n, 0.5);
}

double
mt_mad(const double *v, size_t n)
{
	double *d, med, r;

	if (n == 0 || (d = malloc(n * sizeof(*d))) == NULL)
		return NAN;
	med = mt_median(v, n);
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(v[i] - med);
	r = mt_median(d, n);
	free(d);
	return r;
}

double
mt_robust_z(double x, double median, double mad)
{
	if (mad == 0)
		return x == median ? 0 : x > median ? HUGE_VAL : -HUGE_VAL;
	return 0.6745 * (x - median) / mad;
}

void
mt_ewma_init(struct mt_ewma *e, double alpha)
{
	e->alpha = alpha;
	e->value = 0;
	e->n = 0;
}

double
mt_ewma_add(struct mt_ewma *e, double x)
{
	e->value = e->n++ ? e->value + e->alpha * (x - e->value) : x;
	return e->value;
}

struct ranked {
	double v;
	int from_a;
};

static int
cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

/*
 * Ranks of the pooled samples, tied values sharing their mean rank:
 * returns the sum of a's ranks and, in *ties, sum(t^3 - t) over the
 * groups of t tied values.
 */
static double
rank_sum_a(struct ranked *r, size_t n, double *ties)
{
	double sum = 0;

	*ties = 0;
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double rank, t;

		while (j < n && r[j].v == r[i].v)
			j++;
		rank = (double)(i + 1 + j) / 2;	/* mean of ranks i+1 .. j */
		t = (double)(j - i);
		*ties += t * t * t - t;
		for (size_t k = i; k < j; k++)
			if (r[k].from_a)
				sum += rank;
		i = j;
	}
	return sum;
}

int
mt_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		struct mt_mwu *res)
{
	size_t n = na + nb;
	struct ranked *r;
	double ties, var, dn = (double)n, nab = (double)na * (double)nb;

	if (na == 0 || nb == 0 || (r = malloc(n * sizeof(*r))) == NULL)
		return -1;
	for (size_t i = 0; i < na; i++)
		r[i].v = a[i], r[i].from_a = 1;
	for (size_t i = 0; i < nb; i++)
		r[na + i].v = b[i], r[na + i].from_a = 0;
	res->u_a = rank_sum_a(r, n, &ties) - (double)na * ((double)na + 1) / 2;
	res->u_b = nab - res->u_a;
	free(r);
	var = nab / 12 * ((dn + 1) - ties / (dn * (dn - 1)));
	if (var <= 0) {
		res->z = 0;
		res->p = 1;
		return 0;
	}
	res->z = (fabs(res->u_a - nab / 2) - 0.5) / sqrt(var);
	if (res->z < 0)
		res->z = 0;
	res->p = erfc(res->z / sqrt(2));
	if (res->p > 1)
		res->p = 1;
	return 0;
}

/* splitmix64 (Steele, Lea and Flood): a full-period 64-bit generator
   whose whole state is the caller's counter. */
static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The median (type 7) of v[0..n), n >= 1, which it reorders: Hoare's
 * selection of the lower middle element, then the least of the upper
 * part for an even n.  Linear on average, where sorting a resample of
 * twenty thousand samples for each bootstrap draw was not.
 */
static double
select_median(double *v, size_t n)
{
	size_t k = (n - 1) / 2, lo = 0, hi = n - 1;
	double up;

	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];

				v[i++] = v[j];
				v[j] = t;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	if (n % 2)
		return v[k];
	up = v[k + 1];
	for (size_t i = k + 2; i < n; i++)
		if (v[i] < up)
			up = v[i];
	return (v[k] + up) / 2;
}

static double
resample_median(const double *v, size_t n, double *tmp, uint64_t *s)
{
	for (size_t i = 0; i < n; i++)
		tmp[i] = v[splitmix64(s) % n];
	return select_median(tmp, n);
}

int
mt_bootstrap_median_diff(const double *a, size_t na, const double *b,
			 size_t nb, unsigned iters, double conf, uint64_t seed,
			 struct mt_boot *res)
{
	double *tmp, *d;
	uint64_t s = seed;

	if (na == 0 || nb == 0 || iters == 0)
		return -1;
	tmp = malloc((na > nb ? na : nb) * sizeof(*tmp));
	d = malloc(iters * sizeof(*d));
	if (tmp == NULL || d == NULL) {
		free(tmp);
		free(d);
		return -1;
	}
	for (unsigned i = 0; i < iters; i++) {
		double ma = resample_median(a, na, tmp, &s);

		d[i] = resample_median(b, nb, tmp, &s) - ma;
	}
	mt_stats_sort(d, iters);
	res->diff = mt_median(b, nb) - mt_median(a, na);
	res->lo = mt_quantile_sorted(d, iters, (1 - conf) / 2);
	res->hi = mt_quantile_sorted(d, iters, (1 + conf) / 2);
	free(tmp);
	free(d);
	return 0;
}

/* MT_RUNS_INNER medians of resamples of each run, row by row. */
static double *
inner_medians(const struct mt_run_samples *r, size_t k, uint64_t *s)
{
	size_t max = 1;
	double *m = malloc(k * MT_RUNS_INNER * sizeof(*m)), *tmp;

	for (size_t i = 0; i < k; i++)
		max = r[i].n > max ? r[i].n : max;
	if (m == NULL || (tmp = malloc(max * sizeof(*tmp))) == NULL) {
		free(m);
		return NULL;
	}
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < MT_RUNS_INNER; j++)
			m[i * MT_RUNS_INNER + j] = resample_median(r[i].v, r[i].n, tmp, s);
	free(tmp);
	return m;
}

/* The median of a side's run medians, and their relative spread. */
static int
side_median(const struct mt_run_samples *r, size_t k, double *med, double *spread)
{
	double *m = malloc(k * sizeof(*m));

	if (m == NULL)
		return -1;
	for (size_t i = 0; i < k; i++)
		m[i] = mt_median(r[i].v, r[i].n);
	mt_stats_sort(m, k);
	*med = mt_quantile_sorted(m, k, 0.5);
	*spread = *med != 0 ? (m[k - 1] - m[0]) / fabs(*med) : m[k - 1] != m[0];
	free(m);
	return 0;
}

/* One draw of the two-stage bootstrap of a side. */
static double
draw_side(const double *inner, size_t k, double *tmp, uint64_t *s)
{
	for (size_t i = 0; i < k; i++) {
		size_t run = splitmix64(s) % k;

		tmp[i] = inner[run * MT_RUNS_INNER + splitmix64(s) % MT_RUNS_INNER];
	}
	return select_median(tmp, k);
}

int
mt_runs_compare(const struct mt_run_samples *a, size_t ka,
		const struct mt_run_samples *b, size_t kb, unsigned iters,
		double conf, uint64_t seed, struct mt_runs_cmp *res)
{
	double *ia = NULL, *ib = NULL, *d = NULL, *tmp = NULL;
	uint64_t s = seed;
	int rc = -1;

	if (ka == 0 || kb == 0 || iters == 0)
		return -1;
	for (size_t i = 0; i < ka + kb; i++)
		if ((i < ka ? a[i].n : b[i - ka].n) == 0)
			return -1;
	if (side_median(a, ka, &res->a_med, &res->a_spread) != 0 ||
	    side_median(b, kb, &res->b_med, &res->b_spread) != 0 ||
	    (ia = inner_medians(a, ka, &s)) == NULL || (ib = inner_medians(b, kb, &s)) == NULL ||
	    (d = malloc(iters * sizeof(*d))) == NULL ||
	    (tmp = malloc((ka > kb ? ka : kb) * sizeof(*tmp))) == NULL)
		goto out;
	for (unsigned i = 0; i < iters; i++) {
		double ma = draw_side(ia, ka, tmp, &s);

		d[i] = draw_side(ib, kb, tmp, &s) - ma;
	}
	mt_stats_sort(d, iters);
	res->lo = mt_quantile_sorted(d, iters, (1 - conf) / 2);
	res->hi = mt_quantile_sorted(d, iters, (1 + conf) / 2);
	rc = 0;
out:
	free(ia);
	free(ib);
	free(d);
	free(tmp);
	return rc;
}

int
mt_runs_verdict(const struct mt_runs_cmp *c, double min_rel, double noise_k,
		double *floor)
{
	double spread = c->a_spread > c->b_spread ? c->a_spread : c->b_spread;
	double f = noise_k * spread > min_rel ? noise_k * spread : min_rel;
	double rel = c->a_med != 0 ? (c->b_med - c->a_med) / fabs(c->a_med) :
		c->b_med != 0 ? 1 : 0;

	if (floor)
		*floor = f;
	if ((c->lo <= 0 && c->hi >= 0) || fabs(rel) < f)
		return 0;
	return rel > 0 ? 1 : -1;
}
