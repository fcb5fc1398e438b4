/*
 * output/stats: each statistic against values worked by hand or
 * published with a textbook example.
 */
#include <math.h>
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

MT_TEST_MAIN()
