/* The local target: probe matching, tick-N parsing, the session cycle. */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"
#include "machtrace/program.h"

struct seen { int n; struct mt_probe_info last; char name[64]; };

static int collect(void *arg, const struct mt_probe_info *p)
{
	struct seen *s = arg;

	s->n++;
	s->last = *p;
	snprintf(s->name, sizeof(s->name), "%s", p->name);
	return 0;
}

static int match(struct mt_target *t, const char *prov, const char *name,
		 int create, struct seen *s)
{
	struct mt_pdesc pd = { (char *)prov, NULL, NULL, (char *)name, 0 };

	memset(s, 0, sizeof(*s));
	return t->ops->probes(t, &pd, create, collect, s);
}

TEST(probe_matching)
{
	struct mt_target *t = mt_local_target_new();
	struct seen s;

	CHECK(t != NULL);
	CHECK_EQ_INT(match(t, "dtrace", "BEGIN", 0, &s), 1);
	CHECK_EQ_INT(s.last.id, MT_PROBE_BEGIN);
	CHECK_EQ_INT(match(t, "dtrace", "*", 0, &s), 3);
	CHECK_EQ_INT(match(t, NULL, "ERROR", 0, &s), 1);
	CHECK_EQ_INT(s.last.id, MT_PROBE_ERROR);
	CHECK_EQ_INT(match(t, "profile", "profile-97", 0, &s), 1);
	CHECK_EQ_INT(s.last.kind, MT_PK_PROFILE);
	CHECK_EQ_INT(s.last.arg, 1000000000ull / 97);
	CHECK_EQ_INT(match(t, "profile", "tick-10ms", 0, &s), 0);
	CHECK_EQ_INT(match(t, "profile", "tick-10ms", 1, &s), 1);
	CHECK_EQ_INT(s.last.kind, MT_PK_TICK);
	CHECK_EQ_INT(s.last.arg, 10000000);
	uint32_t id = s.last.id;
	CHECK(id > MT_PROBE_ERROR);
	CHECK_EQ_INT(match(t, NULL, "tick-10ms", 1, &s), 1);
	CHECK_EQ_INT(s.last.id, id);		/* created once */
	CHECK_EQ_INT(match(t, NULL, "tick-2sec", 1, &s), 1);
	CHECK_EQ_INT(s.last.arg, 2000000000ull);
	CHECK_EQ_INT(match(t, NULL, "profile-1m", 1, &s), 1);
	CHECK_EQ_INT(s.last.arg, 60000000000ull);
	CHECK_EQ_INT(match(t, NULL, "tick-5", 1, &s), 1);	/* hz */
	CHECK_EQ_INT(s.last.arg, 200000000);
	CHECK_EQ_INT(match(t, NULL, "tick-abc", 1, &s), 0);
	CHECK_EQ_INT(match(t, NULL, "tick-50us", 1, &s), 0);	/* too fast */
	CHECK_EQ_INT(match(t, NULL, "tick-1xs", 1, &s), 0);
	CHECK_EQ_INT(match(t, "dtrace", "tick-1s", 1, &s), 0);
	mt_target_free(t);
}

TEST(session_cycle)
{
	struct mt_target *t = mt_local_target_new();
	struct ib b;
	struct mt_image *img;

	ib_init(&b);
	b.probes[3].arg = 1000000;		/* the tick: 1 ms */
	uint32_t k = ib_int(&b, 7);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, RV(SETX, k, 1), R(RET, 0, 0, 1));
	ib_clause(&b, 0, 0, 0);			/* BEGIN {} */
	ib_clause(&b, 3, 0, 8);			/* tick { exit(7); } */
	ib_action(&b, MT_ACT_EXIT, 0);
	ib_rec(&b, d, MT_REC_INT, 0, 4, 0);
	ib_clause(&b, 1, 0, 0);			/* END {} */
	img = ib_build(&b);
	CHECK_EQ_INT(t->ops->attach(t, img), 0);
	free(img);
	struct mt_cb *cb = t->ops->cb(t);
	CHECK_EQ_INT(t->ops->begin(t), 0);
	int rc = 0;
	for (int i = 0; i < 1000 && rc == 0; i++)
		rc = t->ops->poll(t, 100000000ull);
	CHECK_EQ_INT(rc, 1);
	CHECK_EQ_INT(cb->exit_status, 7);
	CHECK_EQ_INT(t->ops->end(t), 0);
	CHECK_EQ_INT(cb->state, MT_CB_STOPPED);
	struct rtrun r = { .cb = cb };
	CHECK_EQ_INT(rt_nrecs(&r), 3);
	CHECK_EQ_INT(rt_rec(&r, 1)->epid, 3);	/* tick (ECBs grouped per probe) */
	CHECK_EQ_INT(rt_rec(&r, 2)->epid, 2);	/* END */
	t->ops->detach(t);
	mt_target_free(t);
}

TEST(attach_rejects_bad_image)
{
	struct mt_target *t = mt_local_target_new();
	struct ib b;
	struct mt_image *img;

	ib_init(&b);
	uint32_t d = IB_DIFO(&b, MT_RT_INT, R(RET, 0, 0, 77));
	ib_clause(&b, 0, d, 0);
	img = ib_build(&b);
	CHECK_EQ_INT(t->ops->attach(t, img), -1);
	CHECK(strstr(mt_target_error(t), "invalid enabling: DIFO 0 "
		     "instruction 0: invalid register") != NULL);
	free(img);
	mt_target_free(t);
}

MT_TEST_MAIN()
