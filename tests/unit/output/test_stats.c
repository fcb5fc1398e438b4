/*
 * output/stats: each statistic against values worked by hand or
 * published with a textbook example.
 */
#include <math.h>
#include <string.h>
#include "machtrace/stats.h"
#include "../mt_test.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

/* Hyndman and Fan type 7, numpy.quantile's default: [1,2,3,4] -> q25
   1.75, median 2.5, q90 3.7; the order of the input does not matter. */
TEST(quantile_type7)
{
	double v[] = { 4, 1, 3, 2 };

	CHECK(NEAR(mt_quantile(v, 4, 0.25), 1.75, 1e-12));
	CHECK(NEAR(mt_median(v, 4), 2.5, 1e-12));
	CHECK(NEAR(mt_quantile(v, 4, 0.9), 3.7, 1e-12));
	CHECK(mt_quantile(v, 4, 0) == 1 && mt_quantile(v, 4, 1) == 4);
	CHECK(v[0] == 4 && v[1] == 1);
	CHECK(isnan(mt_median(v, 0)));
}

/* Wikipedia's MAD example: {1,1,2,2,4,6,9}: median 2, deviations
   {1,1,0,0,2,4,7}, MAD 1; 9's modified z-score 0.6745 * 7 / 1. */
TEST(mad_robust_z)
{
	double v[] = { 1, 1, 2, 2, 4, 6, 9 };
	double med = mt_median(v, 7), mad = mt_mad(v, 7);

	CHECK(med == 2 && mad == 1);
	CHECK(NEAR(mt_robust_z(9, med, mad), 4.7215, 1e-9));
	CHECK(NEAR(mt_robust_z(1, med, mad), -0.6745, 1e-9));
	CHECK(mt_robust_z(5, 5, 0) == 0);
	CHECK(mt_robust_z(6, 5, 0) == HUGE_VAL && mt_robust_z(4, 5, 0) == -HUGE_VAL);
}

/* alpha 0.5 over 10, 20, 30: 10, 15, 22.5. */
TEST(ewma)
{
	struct mt_ewma e;

	mt_ewma_init(&e, 0.5);
	CHECK(mt_ewma_add(&e, 10) == 10);
	CHECK(mt_ewma_add(&e, 20) == 15);
	CHECK(mt_ewma_add(&e, 30) == 22.5);
	CHECK(e.n == 3);
}

/*
 * scipy.stats.mannwhitneyu's documented example (Conover's males and
 * females): U1 = 17, method="asymptotic" p = 0.11134688653314041.
 */
TEST(mann_whitney_textbook)
{
	double m[] = { 19, 22, 16, 29, 24 }, f[] = { 20, 11, 17, 12 };
	struct mt_mwu r;

	CHECK(mt_mann_whitney(m, 5, f, 4, &r) == 0);
	CHECK(r.u_a == 17 && r.u_b == 3);
	CHECK(NEAR(r.p, 0.11134688653314041, 1e-12));
	CHECK(NEAR(r.z, 1.5921683328090657, 1e-12));
	CHECK(mt_mann_whitney(f, 4, m, 5, &r) == 0);
	CHECK(r.u_a == 3 && NEAR(r.p, 0.11134688653314041, 1e-12));
}

/*
 * Ties, by hand: a = {1,2,2,3}, b = {2,3,4,5}; pooled ranks 1, 3,3,3,
 * 5.5,5.5, 7, 8: a's sum 12.5, U_a = 2.5; ties sum(t^3-t) = 24 + 6;
 * sigma^2 = 16/12 (9 - 30/56) = 11.2857142857, z = (5.5 - .5)/sigma =
 * 1.48835139447, p = erfc(z / sqrt 2) = 0.136658247738.
 */
TEST(mann_whitney_ties)
{
	double a[] = { 1, 2, 2, 3 }, b[] = { 2, 3, 4, 5 }, c[] = { 7, 7, 7 };
	struct mt_mwu r;

	CHECK(mt_mann_whitney(a, 4, b, 4, &r) == 0);
	CHECK(r.u_a == 2.5 && r.u_b == 13.5);
	CHECK(NEAR(r.z, 1.4883513944689681, 1e-12));
	CHECK(NEAR(r.p, 0.13665824773814753, 1e-12));
	/* all tied: no evidence either way */
	CHECK(mt_mann_whitney(c, 3, c, 2, &r) == 0);
	CHECK(r.p == 1 && r.z == 0);
	CHECK(mt_mann_whitney(a, 0, b, 4, &r) == -1);
}

/* Two samples far apart: z grows with the sample, p vanishes. */
TEST(mann_whitney_shift)
{
	double a[200], b[200];
	struct mt_mwu r;

	for (int i = 0; i < 200; i++)
		a[i] = 1000 + i % 7, b[i] = 1500 + i % 7;
	CHECK(mt_mann_whitney(a, 200, b, 200, &r) == 0);
	CHECK(r.u_a == 0 && r.p < 1e-60);
}

/*
 * The bootstrap: the same seed gives the same interval; constant
 * samples give exactly their difference; a shift of 100 over noise is
 * inside the 95% interval, and the interval excludes 0.
 */
TEST(bootstrap_median_diff)
{
	double a[101], b[101], k1[5] = { 3, 3, 3, 3, 3 }, k2[4] = { 10, 10, 10, 10 };
	struct mt_boot r1, r2;

	for (int i = 0; i < 101; i++) {
		a[i] = (double)((i * 37) % 101);
		b[i] = a[i] + 100;
	}
	CHECK(mt_bootstrap_median_diff(a, 101, b, 101, 1000, 0.95, 42, &r1) == 0);
	CHECK(mt_bootstrap_median_diff(a, 101, b, 101, 1000, 0.95, 42, &r2) == 0);
	CHECK(r1.lo == r2.lo && r1.hi == r2.hi && r1.diff == 100);
	CHECK(r1.lo <= 100 && r1.hi >= 100 && r1.lo > 0);
	CHECK(mt_bootstrap_median_diff(k1, 5, k2, 4, 50, 0.95, 1, &r1) == 0);
	CHECK(r1.diff == 7 && r1.lo == 7 && r1.hi == 7);
	CHECK(mt_bootstrap_median_diff(k1, 5, k2, 0, 50, 0.95, 1, &r1) == -1);
}

/*
 * Synthetic runs: run r's samples are shift[r] (1000 + 500 E) with E a
 * standard exponential's quantiles (a long tail), n samples, so every
 * run has the same shape and only the per-run shift differs, as a
 * host's load moves a whole run.
 */
#define RUNS	5
#define RUN_N	4000
#define MIN_REL	0.05	/* machtrace baseline's (tools/baseline/bldata.c) */
#define NOISE_K	3.0

static double run_v[2][RUNS][RUN_N];

static void
make_runs(int side, const double *shift, struct mt_run_samples *rs)
{
	for (int r = 0; r < RUNS; r++) {
		for (int i = 0; i < RUN_N; i++)
			run_v[side][r][i] = shift[r] *
				(1000 + 500 * -log(1 - (i + 0.5) / RUN_N));
		rs[r].v = run_v[side][r];
		rs[r].n = RUN_N;
	}
}

static int
verdict(const double *sa, const double *sb, struct mt_runs_cmp *c)
{
	struct mt_run_samples a[RUNS], b[RUNS];

	make_runs(0, sa, a);
	make_runs(1, sb, b);
	if (mt_runs_compare(a, RUNS, b, RUNS, 2000, 0.99, 7, c) != 0)
		return 99;
	return mt_runs_verdict(c, MIN_REL, NOISE_K, NULL);
}

/* The per-run medians and spread: median 1000 + 500 ln 2 times the
   shift; spread (max - min) / median of the shifts. */
TEST(runs_medians_spread)
{
	double s[RUNS] = { 1.00, 1.04, 0.97, 1.02, 0.99 };
	struct mt_runs_cmp c;
	double m = 1000 + 500 * log(2);

	CHECK(verdict(s, s, &c) == 0);
	CHECK(NEAR(c.a_med, m, 0.5) && NEAR(c.b_med, m, 0.5));
	CHECK(NEAR(c.a_spread, 0.07, 1e-3) && c.lo <= 0 && c.hi >= 0);
}

/*
 * Identical workloads whose runs each shift by a few percent, the new
 * side's median run 8% up, as a busier host makes a whole measurement:
 * the comparison of the pooled samples, one run per side, that
 * machtrace baseline made before (Mann-Whitney p < 0.001, a bootstrap
 * interval of the median's change excluding 0, a change of at least
 * 5%) calls it a regression; between the runs it is noise.
 */
TEST(runs_per_run_shift_is_noise)
{
	double sa[RUNS] = { 1.00, 1.04, 0.97, 1.02, 0.99 };
	double sb[RUNS] = { 1.09, 1.03, 1.11, 1.06, 1.08 };
	static double pa[RUNS * RUN_N], pb[RUNS * RUN_N];
	struct mt_runs_cmp c;
	struct mt_mwu u;
	struct mt_boot b;

	CHECK(verdict(sa, sb, &c) == 0);
	CHECK(NEAR(c.b_med / c.a_med, 1.08, 1e-3) && c.lo > 0);
	memcpy(pa, run_v[0], sizeof(pa));
	memcpy(pb, run_v[1], sizeof(pb));
	CHECK(mt_mann_whitney(pa, RUNS * RUN_N, pb, RUNS * RUN_N, &u) == 0 && u.p < 1e-3);
	CHECK(mt_bootstrap_median_diff(pa, RUNS * RUN_N, pb, RUNS * RUN_N, 200, 0.95, 1,
				       &b) == 0 && b.lo > 0);
	CHECK(b.diff / mt_median(pa, RUNS * RUN_N) >= 0.05);
}

/* A real 2x shift is a change up; half is one down. */
TEST(runs_real_shift)
{
	double sa[RUNS] = { 1.00, 1.04, 0.97, 1.02, 0.99 };
	double up[RUNS], down[RUNS];
	struct mt_runs_cmp c;
	double floor;

	for (int r = 0; r < RUNS; r++)
		up[r] = 2 * sa[(r + 2) % RUNS], down[r] = sa[r] / 2;
	CHECK(verdict(sa, up, &c) == 1);
	CHECK(NEAR(c.b_med / c.a_med, 2, 1e-3) && c.lo > 0);
	CHECK(mt_runs_verdict(&c, MIN_REL, NOISE_K, &floor) == 1 && NEAR(floor, 0.21, 1e-3));
	CHECK(verdict(sa, down, &c) == -1 && c.hi < 0);
}

/* One run far off (3x) moves neither the median of the run medians nor
   the verdict: it widens the noise floor instead. */
TEST(runs_one_noisy_run)
{
	double sa[RUNS] = { 1.00, 1.04, 0.97, 1.02, 0.99 };
	double sb[RUNS] = { 1.01, 0.98, 3.00, 1.03, 1.00 };
	struct mt_runs_cmp c;
	double floor;

	CHECK(verdict(sa, sb, &c) == 0);
	CHECK(mt_runs_verdict(&c, MIN_REL, NOISE_K, &floor) == 0 && floor > 1);
}

/* A shift smaller than the floor, though every new run is above every
   old one: the interval excludes 0, the verdict is still no change. */
TEST(runs_below_floor)
{
	double sa[RUNS] = { 1.00, 1.01, 0.99, 1.00, 1.01 };
	double sb[RUNS] = { 1.05, 1.06, 1.04, 1.05, 1.06 };
	struct mt_runs_cmp c;

	CHECK(verdict(sa, sb, &c) == 0 && c.lo > 0);
}

/* Equal runs (icount) give a zero-width interval; an empty run or side
   is refused; k = 1 gives the run's own median (the selection agrees
   with sorting, even and odd counts, ties). */
TEST(runs_edges)
{
	double v[6] = { 5, 1, 4, 4, 2, 9 }, w[5] = { 3, 3, 1, 3, 7 };
	struct mt_run_samples a[2] = { { v, 6 }, { v, 6 } }, b = { w, 5 }, e = { v, 0 };
	struct mt_runs_cmp c;

	CHECK(mt_runs_compare(a, 2, a, 2, 100, 0.99, 1, &c) == 0);
	CHECK(c.a_med == 4 && c.b_med == 4 && c.a_spread == 0);
	CHECK(mt_runs_compare(a, 1, &b, 1, 100, 0.99, 1, &c) == 0 && c.b_med == 3);
	CHECK(mt_runs_compare(a, 0, &b, 1, 100, 0.99, 1, &c) == -1);
	CHECK(mt_runs_compare(a, 1, &e, 1, 100, 0.99, 1, &c) == -1);
	CHECK(mt_runs_compare(a, 1, &b, 1, 0, 0.99, 1, &c) == -1);
}

MT_TEST_MAIN()
