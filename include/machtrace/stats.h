/*
 * Statistics over measured samples (host code, a library: no file-scope
 * state; every function works on what it is given): quantiles, an
 * exponentially weighted moving average, median/MAD robust z-scores,
 * the Mann-Whitney U test with the normal approximation, a bootstrap
 * interval of a median difference, and the comparison of two groups of
 * runs with runs as the unit, which machtrace baseline
 * (docs/baselines.md) decides by; top and the health score (issue 14)
 * use the quantiles, the EWMA and the robust z-scores.
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

/*
 * Runs as the unit (output/stats/runs.c; docs/baselines.md).  A metric
 * measured in several runs of one workload: the samples of one run
 * share that run's conditions (a host's load moves a whole run), so
 * thousands of them say little about the next run; each run's median
 * is one observation.  mt_runs_compare measures, from runs a to runs b:
 *   - the median of the run medians of each side, and its change;
 *   - a two-stage (hierarchical) bootstrap interval of that change:
 *     each of iters iterations draws k runs of a side with replacement
 *     and, for each, the median of a resample of its samples (one of
 *     MT_RUNS_INNER computed once per run), and takes the median of
 *     those k; the (1-conf)/2 and (1+conf)/2 quantiles of the changes;
 *   - each side's run-to-run spread, (max - min) / median of its run
 *     medians, relative.
 * -1 when a side has no run, a run has no sample, iters is 0 or memory
 * runs out.  Deterministic for a seed (splitmix64, as the bootstrap
 * above).
 */
#define MT_RUNS_INNER	64

struct mt_run_samples {
	const double *v;
	size_t n;
};

struct mt_runs_cmp {
	double a_med, b_med;	/* medians of the run medians */
	double lo, hi;		/* interval of b_med - a_med */
	double a_spread, b_spread;
};

int mt_runs_compare(const struct mt_run_samples *a, size_t ka,
		    const struct mt_run_samples *b, size_t kb, unsigned iters,
		    double conf, uint64_t seed, struct mt_runs_cmp *r);

/*
 * The verdict on a comparison: +1 (up), -1 (down) or 0.  A change
 * counts when the interval excludes 0 and the relative change
 * (b_med - a_med) / a_med is at least the noise floor: min_rel, or
 * noise_k times the larger side's run-to-run spread when that is more
 * (so runs that disagree among themselves by S% cannot show a change
 * of less than noise_k S%).  *floor (may be NULL) gets the floor.
 */
int mt_runs_verdict(const struct mt_runs_cmp *c, double min_rel, double noise_k,
		    double *floor);

/*
 * Health (output/stats/health.c; docs/top.md).  A rule is one line
 *   METRIC OP NUMBER [for N intervals] -> MESSAGE
 * (OP one of > >= < <= == !=; '#' starts a comment line; blank lines are
 * skipped).  It fires when the metric satisfies the comparison in each of
 * the last N intervals (default 1).
 */
enum mt_rule_op { MT_OP_GT, MT_OP_GE, MT_OP_LT, MT_OP_LE, MT_OP_EQ, MT_OP_NE };

struct mt_rule {
	char metric[64];
	enum mt_rule_op op;
	double threshold;
	int nfor;		/* intervals in a row, >= 1 */
	char message[256];
	int line;		/* in the rules text, from 1 */
};

/* Every rule of text into *rules (malloc'd; free()); -1 with "line L,
   column C: what" in err for the first bad line. */
int mt_rules_parse(const char *text, struct mt_rule **rules, size_t *nrules,
		   char *err, size_t len);
/* Does v satisfy r's comparison (NaN: never)? */
int mt_rule_holds(const struct mt_rule *r, double v);
const char *mt_rule_op_text(enum mt_rule_op op);

/* A penalty ramp: 0 up to x0, max from x1 on, linear between. */
double mt_ramp(double x, double x0, double x1, double max);

/* 100 minus the positive deductions, at least 0. */
double mt_health_score(const double *points, size_t n);

/*
 * The robust z-score of x against win[0..n) (median/MAD, mt_robust_z),
 * 0 with fewer than MT_WINDOW_MIN values.  The MAD is floored at 5% of
 * |median| and at 1, so that a metric that stayed constant does not make
 * every small change an infinite anomaly.
 */
#define MT_WINDOW_MIN	5
double mt_window_z(const double *win, size_t n, double x);

#endif
