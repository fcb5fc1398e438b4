/*
 * Statistics over measured samples (host code, a library: no file-scope
 * state; every function works on what it is given): quantiles, an
 * exponentially weighted moving average, median/MAD robust z-scores,
 * the Mann-Whitney U test with the normal approximation, and a
 * bootstrap interval of a median difference.  machtrace baseline
 * (docs/baselines.md) compares runs with them; top and the health
 * score (issue 14) are meant to.
 */
#ifndef MACHTRACE_STATS_H
#define MACHTRACE_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Sorts v[0..n) ascending in place. */
void mt_stats_sort(double *v, size_t n);

/*
 * The q-quantile (0 <= q <= 1) of sorted[0..n), interpolated linearly
 * between order statistics (Hyndman and Fan's type 7: R's default,
 * numpy's "linear"): h = (n-1)q, x[floor h] + (h - floor h)(x[floor h+1]
 * - x[floor h]).  NaN when n is 0.
 */
double mt_quantile_sorted(const double *sorted, size_t n, double q);

/* The same of unsorted v[0..n) (v is left as it was).  NaN when n is 0
   or memory runs out. */
double mt_quantile(const double *v, size_t n, double q);
double mt_median(const double *v, size_t n);

/* The median absolute deviation from the median, unscaled
   (median |v[i] - median(v)|).  NaN when n is 0. */
double mt_mad(const double *v, size_t n);

/*
 * The modified z-score of Iglewicz and Hoaglin: 0.6745 (x - median) /
 * MAD (0.6745 makes it a standard normal's z for normal data).  With
 * MAD 0 it is 0 when x is the median and +-HUGE_VAL otherwise.
 */
double mt_robust_z(double x, double median, double mad);

/* An exponentially weighted moving average: the first value added is
   the average; then value += alpha (x - value), 0 < alpha <= 1. */
struct mt_ewma {
	double alpha;
	double value;
	uint64_t n;		/* values added */
};

void mt_ewma_init(struct mt_ewma *e, double alpha);
double mt_ewma_add(struct mt_ewma *e, double x);

/*
 * The Mann-Whitney U test of a[0..na) against b[0..nb) (two-sided):
 * u_a counts the pairs where a's value is the larger (ties count 1/2),
 * u_b = na nb - u_a; z and p from the normal approximation with the
 * tie correction of the variance and a continuity correction of 1/2
 * (scipy.stats.mannwhitneyu's method="asymptotic"):
 *   sigma^2 = na nb / 12 ((n + 1) - sum(t^3 - t) / (n (n - 1)))
 *   z = (|u_a - na nb / 2| - 1/2) / sigma,  p = erfc(z / sqrt 2)
 * With sigma 0 (every value tied) z is 0 and p 1.  -1 when a sample is
 * empty or memory runs out.
 */
struct mt_mwu {
	double u_a, u_b;
	double z;		/* >= 0 */
	double p;		/* two-sided */
};

int mt_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		    struct mt_mwu *r);

/*
 * A percentile bootstrap interval of median(b) - median(a): iters
 * resamples of each (with replacement, drawn by a splitmix64 generator
 * started at seed, so the interval is the same for the same inputs),
 * the (1-conf)/2 and (1+conf)/2 quantiles of the differences.  -1 when
 * a sample is empty, iters is 0 or memory runs out.
 */
struct mt_boot {
	double diff;		/* median(b) - median(a) of the samples */
	double lo, hi;
};

int mt_bootstrap_median_diff(const double *a, size_t na, const double *b,
			     size_t nb, unsigned iters, double conf,
			     uint64_t seed, struct mt_boot *r);

#endif
