/* Parser: clause shapes, probe descriptions, syntax errors. */
#include "../mt_test.h"
#include "ccutil.h"

TEST(parse_pdescs)
{
	struct mt_diag d;
	struct mt_prog *p = cc_text("dtrace:::BEGIN, profile-97, tick-1s\n/1/ { }", 0, &d);
	CHECK(p != NULL);
	CHECK_EQ_INT(p->nclauses, 1);
	CHECK_EQ_INT(p->clause_info[0].npdescs, 3);
	CHECK_EQ_STR(p->clause_info[0].pdescs[0].prov, "dtrace");
	CHECK_EQ_STR(p->clause_info[0].pdescs[0].name, "BEGIN");
	CHECK_EQ_STR(p->clause_info[0].pdescs[1].name, "profile-97");
	CHECK_EQ_STR(p->clause_info[0].pdescs[1].prov, "");
	CHECK(p->clauses[0].pred_difo != 0);
	mt_prog_free(p);
}

TEST(parse_syntax_error_text)
{
	struct mt_diag d;
	CHECK_EQ_STR(cc_fail("BEGIN\n{\n\tx = 1 +;\n}", &d), "D_SYNTAX");
	CHECK_EQ_STR(d.msg, "syntax error near \";\"");
	CHECK_EQ_INT(d.line, 3);
}

TEST(parse_missing_body)
{
	struct mt_diag d;
	CHECK_EQ_STR(cc_fail("BEGIN", &d), "D_SYNTAX");
	CHECK_EQ_STR(d.msg, "expected predicate and/or actions following probe description");
	struct mt_prog *p = cc_text("BEGIN", 1, &d);	/* fine for -n */
	CHECK(p != NULL);
	mt_prog_free(p);
}

TEST(parse_declarations)
{
	struct mt_diag d;
	struct mt_prog *p = cc_text(
		"struct s { int a; char b : 3; };\ntypedef struct s s_t;\n"
		"enum e { A, B = 5 };\nint x[int, string];\nself int t;\n"
		"inline int five = B;\nBEGIN { x[1, \"a\"] = five; }", 0, &d);
	CHECK(p != NULL);
	mt_prog_free(p);
}

MT_TEST_MAIN()
