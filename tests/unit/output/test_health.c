/*
 * output/stats/health.c: the rule parser (good rules, and each error with
 * its line and column), rule evaluation, the penalty ramp, the score and
 * the windowed robust z-score, against values worked by hand.
 */
#include <math.h>
#include <stdlib.h>
#include "machtrace/stats.h"
#include "../mt_test.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

TEST(rules_parse_good)
{
	const char *text =
		"# VM pressure\n"
		"\n"
		"fault_time_pct >= 5 for 3 intervals -> faults eat the CPU  \n"
		"  cpu_pct<1->idle\n"
		"runq_p99_us != 0 for 1 interval -> queued\n"
		"free_pages <= 1e3 -> low memory";
	struct mt_rule *r;
	size_t n;
	char err[256];

	CHECK(mt_rules_parse(text, &r, &n, err, sizeof(err)) == 0);
	CHECK_EQ_INT(n, 4);
	CHECK_EQ_STR(r[0].metric, "fault_time_pct");
	CHECK(r[0].op == MT_OP_GE && r[0].threshold == 5 && r[0].nfor == 3);
	CHECK_EQ_STR(r[0].message, "faults eat the CPU");
	CHECK_EQ_INT(r[0].line, 3);
	CHECK(r[1].op == MT_OP_LT && r[1].threshold == 1 && r[1].nfor == 1);
	CHECK_EQ_STR(r[1].message, "idle");
	CHECK(r[2].op == MT_OP_NE && r[2].nfor == 1 && r[2].line == 5);
	CHECK(r[3].op == MT_OP_LE && r[3].threshold == 1000);
	CHECK_EQ_STR(mt_rule_op_text(r[3].op), "<=");
	free(r);
	CHECK(mt_rules_parse("", &r, &n, err, sizeof(err)) == 0 && n == 0);
	free(r);
}

/* Each error names the first bad line and the column where it starts. */
TEST(rules_parse_errors)
{
	static const struct { const char *text, *err; } bad[] = {
		{ "> 5 -> x", "line 1, column 1: expected a metric name" },
		{ "a > 1 -> x\ncpu_pct => 5 -> x", "line 2, column 9: expected an operator" },
		{ "cpu_pct > five -> x", "line 1, column 11: expected a number" },
		{ "cpu_pct > 5", "line 1, column 12: expected '->'" },
		{ "cpu_pct > 5 for 0 intervals -> x", "line 1, column 17: expected a count" },
		{ "cpu_pct > 5 for 2 ticks -> x", "line 1, column 19: expected 'intervals'" },
		/* the count is on its line: strtol would skip the newline */
		{ "fault_time_pct > 5 for \n2 intervals ->x", "line 1, column 24: expected a count" },
		{ "cpu_pct > 5 ->   ", "line 1, column 18: expected a message" },
		{ "cpu_pct > 5 -> x\n\n  cpu_pct > 5 => x", "line 3, column 15: expected '->'" },
	};
	struct mt_rule *r = (struct mt_rule *)1;
	size_t n = 7;
	char err[256];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK(mt_rules_parse(bad[i].text, &r, &n, err, sizeof(err)) == -1);
		if (strncmp(err, bad[i].err, strlen(bad[i].err)) != 0) {
			printf("FAIL rules_parse_errors: '%s': got '%s'\n", bad[i].text, err);
			mt_test_failed_now = 1;
			return;
		}
		CHECK(r == NULL && n == 0);
	}
}

TEST(rule_holds)
{
	struct mt_rule r = { "m", MT_OP_GT, 5, 1, "x", 1 };

	CHECK(mt_rule_holds(&r, 6) && !mt_rule_holds(&r, 5) && !mt_rule_holds(&r, NAN));
	r.op = MT_OP_GE;
	CHECK(mt_rule_holds(&r, 5) && !mt_rule_holds(&r, 4.9));
	r.op = MT_OP_LT;
	CHECK(mt_rule_holds(&r, 4) && !mt_rule_holds(&r, 5));
	r.op = MT_OP_LE;
	CHECK(mt_rule_holds(&r, 5) && !mt_rule_holds(&r, 6));
	r.op = MT_OP_EQ;
	CHECK(mt_rule_holds(&r, 5) && !mt_rule_holds(&r, 6));
	r.op = MT_OP_NE;
	CHECK(mt_rule_holds(&r, 6) && !mt_rule_holds(&r, 5) && !mt_rule_holds(&r, NAN));
}

/* VM pressure's ramp: 0 up to 2%, 40 points from 20%, 11% -> 20. */
TEST(ramp_and_score)
{
	double pts[] = { 40, 0, -5, 15 }, all[] = { 60, 50 };

	CHECK(mt_ramp(1, 2, 20, 40) == 0 && mt_ramp(2, 2, 20, 40) == 0);
	CHECK(NEAR(mt_ramp(11, 2, 20, 40), 20, 1e-12));
	CHECK(mt_ramp(20, 2, 20, 40) == 40 && mt_ramp(63, 2, 20, 40) == 40);
	CHECK(mt_ramp(NAN, 2, 20, 40) == 0);
	CHECK(mt_health_score(pts, 4) == 45);	/* negatives ignored */
	CHECK(mt_health_score(all, 2) == 0);	/* never below 0 */
	CHECK(mt_health_score(NULL, 0) == 100);
}

/*
 * The window {10,11,12,13,14}: median 12, MAD 1; 20 -> 0.6745 * 8 = 5.396.
 * A constant window {100 x5}: MAD 0 floored at 5% of 100 = 5; 110 ->
 * 0.6745 * 10 / 5 = 1.349 (not an infinite anomaly).  {0 x5}: floor 1;
 * 3 -> 2.0235.  Fewer than MT_WINDOW_MIN values: 0.
 */
TEST(window_z)
{
	double w[] = { 13, 10, 14, 12, 11 }, c[] = { 100, 100, 100, 100, 100 },
		z[] = { 0, 0, 0, 0, 0 };

	CHECK(NEAR(mt_window_z(w, 5, 20), 0.6745 * 8, 1e-9));
	CHECK(NEAR(mt_window_z(w, 5, 12), 0, 1e-12));
	CHECK(NEAR(mt_window_z(c, 5, 110), 0.6745 * 10 / 5, 1e-9));
	CHECK(NEAR(mt_window_z(z, 5, 3), 0.6745 * 3, 1e-9));
	CHECK(mt_window_z(w, 4, 1000) == 0);
	CHECK(mt_window_z(w, 5, NAN) == 0);
}

/* The EWMA over a step: 0.3 of each difference. */
TEST(ewma_step)
{
	struct mt_ewma e;

	mt_ewma_init(&e, 0.3);
	CHECK(mt_ewma_add(&e, 10) == 10);
	CHECK(NEAR(mt_ewma_add(&e, 20), 13, 1e-12));
	CHECK(NEAR(mt_ewma_add(&e, 20), 15.1, 1e-12));
}

MT_TEST_MAIN()
