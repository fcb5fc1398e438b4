/* Semantic checks: dtrace's tags and message texts. */
#include "../mt_test.h"
#include "ccutil.h"

TEST(sema_incompat)
{
	struct mt_diag d;
	CHECK_EQ_STR(cc_fail("BEGIN { i = 1; i += \"s\"; }", &d), "D_OP_INCOMPAT");
	CHECK_EQ_STR(d.msg, "operands have incompatible types: \"int\" += \"string\"");
}

TEST(sema_proto_len)
{
	struct mt_diag d;
	CHECK_EQ_STR(cc_fail("BEGIN { x = substr(); }", &d), "D_PROTO_LEN");
	CHECK_EQ_STR(d.msg, "substr( ) prototype mismatch: 0 args passed, at least 2 expected");
}

TEST(sema_undef)
{
	struct mt_diag d;
	CHECK_EQ_STR(cc_fail("BEGIN { trace(y); }", &d), "D_IDENT_UNDEF");
	CHECK_EQ_STR(d.msg, "failed to resolve y: Unknown variable name");
}

TEST(sema_spec_agg)
{
	struct mt_diag d;
	CHECK_EQ_STR(cc_fail("BEGIN { speculate(1); @a = count(); }", &d), "D_AGG_SPEC");
}

TEST(sema_lquantize_checks)
{
	struct mt_diag d;
	CHECK_EQ_STR(cc_fail("BEGIN { @ = lquantize(1, 2, 3, 4); }", &d), "D_LQUANT_STEPLARGE");
	CHECK_EQ_STR(cc_fail("BEGIN { @ = llquantize(1, 10, 0, 6, 25); }", &d), "D_LLQUANT_STEPVAL");
}

TEST(sema_printf_args)
{
	struct mt_diag d;
	CHECK_EQ_STR(cc_fail("BEGIN { printf(\"%d %s\\n\", 1); }", &d), "D_PRINTF_ARG_PROTO");
	CHECK_EQ_STR(d.msg, "printf( ) prototype mismatch: conversion #2 (%s) is missing a corresponding value argument");
}

MT_TEST_MAIN()
