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

static const char *fake_argtype(void *arg, const char *prov, const char *mod,
				const char *func, const char *name, int i)
{
	return i == 0 ? "struct kmsg *" : i == 1 ? "unsigned short" : NULL;
}

static char *fake_decls(void *arg, const char *ctype)
{
	(*(int *)arg)++;
	return strdup("struct hdr { int id; };\n"
		      "struct kmsg { long size; struct hdr *h; };");
}

TEST(sema_typed_args)
{
	int ncalls = 0;
	struct mt_ctypes ct = { &ncalls, fake_argtype, fake_decls };
	static struct mt_opts o;
	mt_opts_init(&o);
	const char *text = "fbt::f:entry { trace(args[0]->h->id); trace(args[1]); "
			   "trace(args[0]->size); trace(args[2]); }";
	struct mt_cc_src src = { text, text, 1 };
	struct mt_cc_input in = { 0 };
	in.srcs = &src;
	in.nsrcs = 1;
	in.opts = &o;
	in.ctypes = &ct;
	struct mt_diag d;
	struct mt_prog *p = mt_compile(&in, &d);
	CHECK(p != NULL);
	CHECK_EQ_INT(ncalls, 1);		/* declarations compiled once */
	CHECK_EQ_STR(p->rec_info[0].ctype, "int");
	CHECK_EQ_INT(p->recs[0].size, 4);
	CHECK_EQ_STR(p->rec_info[1].ctype, "unsigned short");
	CHECK_EQ_STR(p->rec_info[2].ctype, "long");
	CHECK_EQ_STR(p->rec_info[3].ctype, "int64_t");
	mt_prog_free(p);
}

MT_TEST_MAIN()
