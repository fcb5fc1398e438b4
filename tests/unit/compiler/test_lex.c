/* Lexer: constants, strings, comments, control lines. */
#include "../mt_test.h"
#include "ccutil.h"

TEST(lex_octal_digit)
{
	struct mt_diag d;
	CHECK_EQ_STR(cc_fail("BEGIN { x = 0128; }", &d), "D_INT_DIGIT");
	CHECK_EQ_STR(d.msg, "constant 0128 contains invalid digit 8");
}

TEST(lex_string_newline)
{
	struct mt_diag d;
	CHECK_EQ_STR(cc_fail("BEGIN { x = \"ab\ncd\"; }", &d), "D_STR_NL");
	CHECK_EQ_INT(d.line, 2);
}

TEST(lex_comment_and_pragma)
{
	struct mt_diag d;
	struct mt_prog *p = cc_text("/* c */\n#pragma D option quiet\nBEGIN // x\n{ trace('a'); }", 0, &d);
	CHECK(p != NULL);
	CHECK_EQ_INT(p->noptsets, 1);
	CHECK_EQ_STR(p->optsets[0].name, "quiet");
	mt_prog_free(p);
}

TEST(lex_eof_in_comment)
{
	struct mt_diag d;
	CHECK_EQ_STR(cc_fail("BEGIN {}\n/* open\n\n", &d), "D_SYNTAX");
	CHECK_EQ_STR(d.msg, "end-of-file encountered before matching */");
	CHECK_EQ_INT(d.line, 4);
}

MT_TEST_MAIN()
