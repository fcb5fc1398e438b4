/*
 * machtrace baseline's data and comparison (tools/baseline/bldata.c) on
 * synthetic runs: the file keeps each run's samples and refuses a
 * version 1 file; bl_compare calls a per-run shift noise (the one-run
 * comparison before it called this data regressed: +7%, Mann-Whitney
 * p = 9e-163) and a real shift a regression.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "tools/baseline/baseline.h"
#include "../mt_test.h"

#define RUNS	5
#define RUN_N	4000
#define RT	"ipc latency of rt (4242)"

/* Run r's samples: shift[r] times an exponential's quantiles over 1000
   (a long tail, the same shape in every run), whole ns as a session
   prints them; a count per run. */
static void
make_set(struct bl_set *s, const double *shift)
{
	bl_set_init(s, "rt=20000", 2, "");
	for (int r = 0; r < RUNS; r++) {
		struct bl_run *run = bl_run_add(s);

		for (int i = 0; i < RUN_N; i++)
			bl_sample_add(run, RT, BL_LATENCY, round(shift[r] *
				      (1000 + 500 * -log(1 - (i + 0.5) / RUN_N))));
		bl_sample_add(run, "messages", BL_COUNT, 40000);
	}
	bl_stack_add(s, "main;rt", 3);
}

static int
compare(const double *sa, const double *sb, char *out, size_t len)
{
	struct bl_set a, b;
	FILE *f = fmemopen(out, len, "w");
	int rc;

	make_set(&a, sa);
	make_set(&b, sb);
	rc = bl_compare(&a, &b, f);
	fclose(f);
	bl_set_free(&a);
	bl_set_free(&b);
	return rc;
}

TEST(per_run_shift_is_no_regression)
{
	double sa[RUNS] = { 1.00, 1.04, 0.97, 1.02, 0.99 };
	double sb[RUNS] = { 1.09, 1.03, 1.11, 1.06, 1.08 };
	char out[4096];

	CHECK(compare(sa, sb, out, sizeof(out)) == 0);
	CHECK(strstr(out, "compared 5 runs of the baseline with 5 runs") != NULL);
	CHECK(strstr(out, "same: " RT " p50 ") != NULL);
	CHECK(strstr(out, "no regression: 1 latency metrics tested") != NULL);
}

TEST(double_is_a_regression)
{
	double sa[RUNS] = { 1.00, 1.04, 0.97, 1.02, 0.99 };
	double sb[RUNS] = { 2.00, 2.08, 1.94, 2.04, 1.98 };
	char out[4096];

	CHECK(compare(sa, sb, out, sizeof(out)) == 1);
	CHECK(strstr(out, "regressed: " RT " p50 +") != NULL);
	CHECK(strstr(out, "runs 5 -> 5 (n 20000 -> 20000)") != NULL);
	CHECK(strstr(out, "REGRESSION: 1 of 1 latency metrics regressed") != NULL);
	CHECK(compare(sb, sa, out, sizeof(out)) == 0 && strstr(out, "improved: ") != NULL);
}

/* Written and read back: every run's samples; version 1 refused. */
TEST(file_round_trip)
{
	double sa[RUNS] = { 1.00, 1.04, 0.97, 1.02, 0.99 };
	char path[] = "/tmp/mt-bldata.XXXXXX", err[512];
	struct bl_set a, b;
	int fd = mkstemp(path);
	FILE *f;

	CHECK(fd >= 0);
	close(fd);
	make_set(&a, sa);
	CHECK(bl_write(&a, path, err, sizeof(err)) == 0);
	CHECK(bl_read(&b, path, err, sizeof(err)) == 0);
	CHECK(b.nruns == RUNS && b.nstacks == 1 && b.seconds == 2);
	CHECK(b.run[3].nmetrics == 2 && b.run[3].m[0].n == RUN_N);
	CHECK(b.run[3].m[0].v[7] == a.run[3].m[0].v[7]);
	/* the stock kernel: no "kernel" key; another is kept (compare boots it) */
	CHECK(b.kernel[0] == '\0');
	bl_set_free(&b);
	snprintf(a.kernel, sizeof(a.kernel), "build/kernels/forky/gnumach-dbg");
	CHECK(bl_write(&a, path, err, sizeof(err)) == 0);
	CHECK(bl_read(&b, path, err, sizeof(err)) == 0);
	CHECK(strcmp(b.kernel, "build/kernels/forky/gnumach-dbg") == 0);
	bl_set_free(&a);
	bl_set_free(&b);
	f = fopen(path, "w");
	fprintf(f, "{\"machtrace-baseline\": 1, \"workload\": \"rt=1\", \"metrics\": []}");
	fclose(f);
	CHECK(bl_read(&b, path, err, sizeof(err)) == -1);
	CHECK(strstr(err, "saved by an older machtrace (one run, file version 1)") != NULL);
	unlink(path);
}

MT_TEST_MAIN()
