/*
 * mt_rt_probe_nargs: how many raw arguments a probe's clauses can read.
 * The live blob fetches only those at a firing (runtime/x86_64/fbt.c), so
 * a reader it misses would see a stale argument: every way a clause reads
 * one (predicate, trace, aggregation key and value, if/else, args[], a
 * second clause, an argument mapping) must count.
 */
#include <stdlib.h>
#include "../mt_test.h"
#include "../dimage.h"
#include "machtrace/compiler.h"
#include "machtrace/options.h"
#include "machtrace/program.h"
#include "machtrace/runtime.h"
#include "tests/lib/rtimg.h"

/* nargs of BEGIN (end = 0) or END (end = 1) for src on the local target;
   -1 if it does not compile or attach. */
static int nargs_of(const char *src, int end)
{
	struct mt_target *t = mt_local_target_new();
	struct mt_image *img = mt_test_dimage(src, NULL, t);
	int pi, rc = -1;

	if (img && t->ops->attach(t, img) == 0) {
		struct mt_cb *cb = t->ops->cb(t);
		pi = mt_rt_probe_index(cb, end ? MT_PROBE_END : MT_PROBE_BEGIN);
		if (pi >= 0)
			rc = (int)mt_rt_probe_nargs(cb, (uint32_t)pi);
		t->ops->detach(t);
	}
	free(img);
	mt_target_free(t);
	return rc;
}

TEST(nargs_none)
{
	CHECK_EQ_INT(nargs_of("BEGIN { @ = count(); }", 0), 0);
	CHECK_EQ_INT(nargs_of("BEGIN { trace(timestamp); }", 0), 0);
}

TEST(nargs_each_reader)
{
	CHECK_EQ_INT(nargs_of("BEGIN { trace(arg3); }", 0), 4);
	CHECK_EQ_INT(nargs_of("BEGIN /arg9 == 1/ { trace(1); }", 0), 10);
	CHECK_EQ_INT(nargs_of("BEGIN { @[arg1] = sum(arg4); }", 0), 5);
	CHECK_EQ_INT(nargs_of("BEGIN { @[arg1] = quantize(arg0); }", 0), 2);
	CHECK_EQ_INT(nargs_of("BEGIN { if (arg7 > 0) { trace(1); } }", 0), 8);
	CHECK_EQ_INT(nargs_of("BEGIN { printf(\"%d %d\\n\", arg0, arg5); }", 0), 6);
	CHECK_EQ_INT(nargs_of("BEGIN { x = arg2; }", 0), 3);
	CHECK_EQ_INT(nargs_of("BEGIN { self->t = arg6; }", 0), 7);
}

/* args[i] (BEGIN has no typed args[]: a hand-built trace(args[2])) and an
   argument mapping read any raw argument. */
TEST(nargs_args_array_and_mapping_are_all)
{
	struct ib b;
	struct rtrun r;

	ib_init(&b);
	uint32_t two = ib_int(&b, 2);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(SETX, two, 1),
			     R(LDGA, MT_VAR_ARGS, 1, 2), R(RET, 0, 0, 2));
	ib_clause(&b, 0, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, MT_REC_INT, 0, 8, 0);
	uint32_t a1 = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG1, 1), R(RET, 0, 0, 1));
	ib_clause(&b, 1, 0, 8);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, a1, MT_REC_INT, 0, 8, 0);
	b.probes[1].nmap = 2;
	b.probes[1].argmap[0] = 7;
	b.probes[1].argmap[1] = 8;
	CHECK_EQ_INT(rt_start(&r, &b), 0);
	CHECK_EQ_INT(mt_rt_probe_nargs(r.cb, 0), MT_NARGS);
	CHECK_EQ_INT(mt_rt_probe_nargs(r.cb, 1), MT_NARGS);
	CHECK_EQ_INT(mt_rt_probe_nargs(r.cb, 3), 0);	/* no clause */
	CHECK_EQ_INT(mt_rt_probe_nargs(r.cb, 99), 0);	/* no probe */
	rt_stop(&r);
}

TEST(nargs_per_probe_over_clauses)
{
	const char *src = "BEGIN { trace(arg1); } END { trace(arg5); } "
			  "BEGIN /arg2/ { trace(0); } dtrace:::BEGIN,END { trace(arg0); }";

	CHECK_EQ_INT(nargs_of(src, 0), 3);
	CHECK_EQ_INT(nargs_of(src, 1), 6);
}

MT_TEST_MAIN()
