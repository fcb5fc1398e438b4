/* Code generation: DIFOs checked through the -S disassembly. */
#include <stdio.h>
#include "../mt_test.h"
#include "ccutil.h"

static char *listing(struct mt_prog *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	mt_disasm(p, f);
	fclose(f);
	return buf;
}

TEST(cg_thin_slice)
{
	struct mt_diag d;
	struct mt_prog *p = cc_text("BEGIN { trace(1); printf(\"%d\\n\", 1+2); exit(0); }", 1, &d);
	CHECK(p != NULL);
	CHECK_EQ_INT(p->nclauses, 1);
	CHECK_EQ_INT(p->clauses[0].nacts, 3);
	CHECK_EQ_INT(p->actions[0].kind, MT_ACT_TRACE);
	CHECK_EQ_INT(p->actions[1].kind, MT_ACT_PRINTF);
	CHECK_EQ_STR(p->action_info[1].fmt, "%d\n");
	CHECK_EQ_INT(p->actions[2].kind, MT_ACT_EXIT);
	char *l = listing(p);
	CHECK(strstr(l, "setx     0x3, %r1") != NULL);	/* 1+2 folded */
	CHECK(strstr(l, "ret      %r1") != NULL);
	free(l);
	mt_prog_free(p);
}

TEST(cg_variable_store)
{
	struct mt_diag d;
	struct mt_prog *p = cc_text("BEGIN { x = timestamp; self->y[x] = x + 1; }", 1, &d);
	CHECK(p != NULL);
	CHECK_EQ_INT(p->nvars, 2);
	char *l = listing(p);
	CHECK(strstr(l, "ldgs") != NULL);
	CHECK(strstr(l, "stgs") != NULL);
	CHECK(strstr(l, "sttaa") != NULL);
	CHECK(strstr(l, "pushtv") != NULL);
	free(l);
	mt_prog_free(p);
}

TEST(cg_aggregation)
{
	struct mt_diag d;
	struct mt_prog *p = cc_text("BEGIN { @[\"a\", 1] = quantize(7); }", 1, &d);
	CHECK(p != NULL);
	CHECK_EQ_INT(p->naggs, 1);
	CHECK_EQ_INT(p->aggs[0].func, MT_AGG_QUANTIZE);
	CHECK_EQ_INT(p->aggs[0].nkeys, 2);
	CHECK_EQ_INT(p->actions[0].kind, MT_ACT_AGG);
	CHECK_EQ_INT(p->actions[0].nrecs, 3);
	CHECK_EQ_INT(p->recs[2].flags & MT_RF_AGGVAL, MT_RF_AGGVAL);
	mt_prog_free(p);
}

/*
 * Code generation state is per compile: a program that fails in the middle
 * of a store through a scratch copy (D_NOREG in the index of g.b[...]: an
 * expression nested deeper than registers and spill slots allow) must
 * not change the code of the next program compiled in the same process.
 * Once, the failing store left "store via scratch" state in file-scope
 * statics and "g.b = 7" then stored straight into variable storage.
 */
TEST(cg_state_survives_no_error)
{
	const char *ok = "struct s { int a; int b; } g; BEGIN { g.b = 7; }";
	char bad[1024] = "struct s { int a; int b[4]; } g; BEGIN { x = 1; g.b[";
	struct mt_diag d;

	struct mt_prog *p = cc_text(ok, 1, &d);
	CHECK(p != NULL);
	char *before = listing(p);
	mt_prog_free(p);
	CHECK(strstr(before, "allocs") != NULL);	/* the scratch copy */
	CHECK(strstr(before, "stgs") != NULL);		/* stored back */

	for (int i = 0; i < 100; i++)
		strcat(bad, "x+(");
	strcat(bad, "x");
	for (int i = 0; i < 100; i++)
		strcat(bad, ")");
	strcat(bad, "] = 7; }");
	CHECK_EQ_STR(cc_fail(bad, &d), "D_NOREG");

	p = cc_text(ok, 1, &d);
	CHECK(p != NULL);
	char *after = listing(p);
	mt_prog_free(p);
	CHECK_EQ_STR(after, before);
	free(before);
	free(after);
}

MT_TEST_MAIN()
