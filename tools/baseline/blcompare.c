/*
 * machtrace baseline's comparison (baseline.h): each latency metric of
 * two measurements with runs as the unit (output/stats: mt_runs_compare,
 * mt_runs_verdict), and the counts.
 */
#include <math.h>
#include <string.h>
#include "tools/baseline/baseline.h"
#include "machtrace/stats.h"

/*
 * When a latency metric regressed (docs/baselines.md): at least
 * BL_MIN_RUNS runs on each side have BL_MIN_SAMPLES samples of it; the
 * bootstrap interval of the change of the median of the run medians
 * excludes 0, and that change is at least the noise floor: BL_MIN_REL
 * of the baseline's, or BL_NOISE_K times the run-to-run spread of the
 * runs (mt_runs_verdict).  A count (the mean over the runs) moved when
 * it changed by BL_COUNT_REL.
 */
#define BL_MIN_SAMPLES	8
#define BL_MIN_RUNS	2
#define BL_MIN_REL	0.05
#define BL_NOISE_K	3.0
#define BL_COUNT_REL	0.10
#define BL_BOOT_ITERS	2000
#define BL_BOOT_CONF	0.99
#define BL_BOOT_SEED	0x6d61636874726163ULL	/* "machtrac" */

/* The runs of s with at least BL_MIN_SAMPLES samples of name, into rs
   (s->nruns entries); how many. */
static size_t
runs_of(const struct bl_set *s, const char *name, struct mt_run_samples *rs)
{
	size_t k = 0;

	for (size_t r = 0; r < s->nruns; r++) {
		const struct bl_metric *m = bl_metric(&s->run[r], name);

		if (m && m->n >= BL_MIN_SAMPLES)
			rs[k].v = m->v, rs[k++].n = m->n;
	}
	return k;
}

/* The median over the runs of each run's q-quantile, and the samples. */
static double
runs_quantile(const struct mt_run_samples *rs, size_t k, double q, size_t *n)
{
	double v[k ? k : 1];

	*n = 0;
	for (size_t i = 0; i < k; i++) {
		v[i] = mt_quantile(rs[i].v, rs[i].n, q);
		*n += rs[i].n;
	}
	return mt_median(v, k);
}

/* One latency metric of both measurements: 1 when it regressed, 0 when
   not; -1 when too few runs have it to test. */
static int
compare_latency(const char *name, const struct bl_set *old, const struct bl_set *cur,
		FILE *out, int *moved)
{
	struct mt_run_samples o[old->nruns ? old->nruns : 1], c[cur->nruns ? cur->nruns : 1];
	size_t ko = runs_of(old, name, o), kc = runs_of(cur, name, c), no, nc;
	struct mt_runs_cmp r;
	double floor, p99o, p99c;
	int v;

	if (ko < BL_MIN_RUNS || kc < BL_MIN_RUNS)
		return -1;
	if (mt_runs_compare(o, ko, c, kc, BL_BOOT_ITERS, BL_BOOT_CONF, BL_BOOT_SEED, &r) != 0)
		return -1;
	if ((v = mt_runs_verdict(&r, BL_MIN_REL, BL_NOISE_K, &floor)) == 0) {
		fprintf(out, "same: %s p50 %.0f -> %.0f (%+.1f%%), within the noise "
			"floor %.1f%% or the %.0f%% interval [%+.0f, %+.0f]\n", name, r.a_med,
			r.b_med, 100 * (r.b_med - r.a_med) / r.a_med, 100 * floor,
			100 * BL_BOOT_CONF, r.lo, r.hi);
		return 0;
	}
	(*moved)++;
	p99o = runs_quantile(o, ko, 0.99, &no);
	p99c = runs_quantile(c, kc, 0.99, &nc);
	fprintf(out, "%s: %s p50 %+.0f ns (%.0f -> %.0f, %+.1f%%), p99 %.0f -> %.0f, "
		"runs %zu -> %zu (n %zu -> %zu), %.0f%% interval of the p50 change "
		"[%+.0f, %+.0f], noise floor %.1f%% (run-to-run spread %.1f%% -> %.1f%%)\n",
		v > 0 ? "regressed" : "improved", name, r.b_med - r.a_med, r.a_med, r.b_med,
		100 * (r.b_med - r.a_med) / r.a_med, p99o, p99c, ko, kc, no, nc,
		100 * BL_BOOT_CONF, r.lo, r.hi, 100 * floor, 100 * r.a_spread, 100 * r.b_spread);
	return v > 0;
}

/* A count's mean over the runs of s (a run without it counts 0). */
static double
count_mean(const struct bl_set *s, const char *name)
{
	double sum = 0;

	for (size_t r = 0; r < s->nruns; r++) {
		const struct bl_metric *m = bl_metric(&s->run[r], name);

		for (size_t i = 0; m && i < m->n; i++)
			sum += m->v[i];
	}
	return s->nruns ? sum / (double)s->nruns : 0;
}

/* The metric of that name in some run of s, or NULL. */
static const struct bl_metric *
any_metric(const struct bl_set *s, const char *name)
{
	const struct bl_metric *m = NULL;

	for (size_t r = 0; r < s->nruns && m == NULL; r++)
		m = bl_metric(&s->run[r], name);
	return m;
}

/* Is m's name the first of its kind in s (runs before r, metrics
   before it in r): each metric is compared once. */
static int
first_seen(const struct bl_set *s, size_t r, const struct bl_metric *m)
{
	for (size_t i = 0; i < r; i++)
		if (bl_metric(&s->run[i], m->name))
			return 0;
	return 1;
}

/* The latency metrics and counts of old against cur; *tested, *moved. */
static int
compare_metrics(const struct bl_set *old, const struct bl_set *cur, FILE *out,
		int *tested, int *moved)
{
	struct mt_run_samples rs[cur->nruns ? cur->nruns : 1];
	int regressed = 0;

	for (size_t r = 0; r < old->nruns; r++)
		for (size_t i = 0; i < old->run[r].nmetrics; i++) {
			const struct bl_metric *o = &old->run[r].m[i];
			double a, b;
			int rc;

			if (!first_seen(old, r, o))
				continue;
			if (o->kind == BL_LATENCY) {
				if ((rc = compare_latency(o->name, old, cur, out, moved)) >= 0) {
					(*tested)++;
					regressed += rc;
				} else if (runs_of(cur, o->name, rs) == 0 && o->n >= BL_MIN_SAMPLES)
					fprintf(out, "gone: %s (in the baseline, in no run of "
						"this measurement)\n", o->name);
				continue;
			}
			a = count_mean(old, o->name), b = count_mean(cur, o->name);
			if (fabs(b - a) > BL_COUNT_REL * (a > 0 ? a : 1)) {
				(*moved)++;
				fprintf(out, "changed: %s %.0f -> %.0f (%+.0f, %+.1f%%; a count, "
					"the mean over the runs: no test)\n", o->name, a, b, b - a,
					a > 0 ? 100 * (b - a) / a : 100.0);
			}
		}
	return regressed;
}

int
bl_compare(const struct bl_set *old, const struct bl_set *cur, FILE *out)
{
	int regressed, moved = 0, tested = 0;

	fprintf(out, "compared %zu runs of the baseline with %zu runs of this "
		"measurement\n", old->nruns, cur->nruns);
	regressed = compare_metrics(old, cur, out, &tested, &moved);
	for (size_t r = 0; r < cur->nruns; r++)
		for (size_t i = 0; i < cur->run[r].nmetrics; i++) {
			const struct bl_metric *m = &cur->run[r].m[i];

			if (first_seen(cur, r, m) && any_metric(old, m->name) == NULL &&
			    (m->kind == BL_COUNT || m->n >= BL_MIN_SAMPLES))
				fprintf(out, "new: %s (not in the baseline)\n", m->name);
		}
	if (regressed)
		fprintf(out, "REGRESSION: %d of %d latency metrics regressed\n", regressed,
			tested);
	else
		fprintf(out, "no regression: %d latency metrics tested, %d metrics moved\n",
			tested, moved);
	return regressed != 0;
}
