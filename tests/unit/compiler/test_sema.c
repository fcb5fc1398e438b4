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
	struct mt_ctypes ct = { .arg = &ncalls, .argtype = fake_argtype, .decls = fake_decls };
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

static const char *enum_argtype(void *arg, const char *prov, const char *mod,
				const char *func, const char *name, int i)
{
	return i == 0 ? "enum kind" : NULL;
}

static char *enum_decls(void *arg, const char *ctype)
{
	return strdup("enum kind { KA, KB };");
}

/* A target's enum tag on the right of a comparison with that enum: the
   tag, unless a program global has its name (dtrace's D_IDENT_AMBIG); the
   global itself is no redeclaration (the D variable wins). */
static struct mt_prog *enum_compile(const char *text, struct mt_diag *d)
{
	static const struct mt_ctypes ct = { .argtype = enum_argtype,
					     .decls = enum_decls };

	return cc_text_ct(text, 1, &ct, d);
}

TEST(sema_target_enum_tags)
{
	struct mt_diag d;
	struct mt_prog *p;

	p = enum_compile("fbt::f:entry { trace(args[0] == KB); }", &d);
	CHECK(p != NULL);
	mt_prog_free(p);
	p = enum_compile("int KB; fbt::f:entry { trace(args[0]); KB = 2; }", &d);
	CHECK(p != NULL);
	mt_prog_free(p);
	p = enum_compile("int KB; fbt::f:entry { trace(args[0] == KB); }", &d);
	CHECK(p == NULL);
	CHECK_EQ_STR(d.tag, "D_IDENT_AMBIG");
	CHECK_EQ_STR(d.msg, "ambiguous use of operator ==: KB is both a enum kind enum tag and a global scalar");
}

/* A provider translating args[0] (native struct kt *, translated xt_t *)
   and args[1] (no translator declared for it); args[2] untranslated. */
static const char *xl_argtype(void *arg, const char *prov, const char *mod,
			      const char *func, const char *name, int i)
{
	if (strcmp(func, "g") == 0)
		return i == 0 ? "yt_t *" : NULL;
	return i == 0 ? "xt_t *" : i == 1 ? "nothere_t *" : i == 2 ? "long" : NULL;
}

static const char *xl_argnative(void *arg, const char *prov, const char *mod,
				const char *func, const char *name, int i)
{
	return i <= 1 || strcmp(func, "g") == 0 ? "struct kt *" : NULL;
}

static char *xl_decls(void *arg, const char *ctype)
{
	return strcmp(ctype, "struct kt *") == 0 || strcmp(ctype, "struct kt") == 0 ?
	       strdup("struct kt { int a; long b; };") : NULL;
}

static struct mt_prog *xl_compile(const char *body, struct mt_diag *d)
{
	static struct mt_opts o;
	static struct mt_ctypes ct;
	static char text[2048];
	struct mt_cc_src src = { text, "t.d", 0 };
	struct mt_cc_input in = { 0 };

	ct.argtype = xl_argtype;
	ct.argnative = xl_argnative;
	ct.decls = xl_decls;
	mt_opts_init(&o);
	snprintf(text, sizeof(text),
		 "typedef struct xs { int aa; long bb; char s[8]; } xt_t;\n"
		 "translator xt_t < struct kt *K > { aa = K->a * 2; bb = K->b; };\n"
		 "%s", body);
	in.srcs = &src;
	in.nsrcs = 1;
	in.opts = &o;
	in.ctypes = &ct;
	return mt_compile(&in, d);
}

TEST(sema_translated_args)
{
	struct mt_diag d;
	struct mt_prog *p = xl_compile("fbt::f:entry { trace(args[0]->aa); "
				       "trace(args[0]->bb); trace(args[2]); "
				       "trace(((struct kt *)arg0)->a); }", &d);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_EQ_STR(p->rec_info[0].ctype, "int");
	CHECK_EQ_STR(p->rec_info[1].ctype, "long");
	CHECK_EQ_STR(p->rec_info[2].ctype, "long");
	mt_prog_free(p);
	/* args[0] is an xt_t * a variable can hold */
	p = xl_compile("fbt::f:entry { x = args[0]; trace(x->bb); }", &d);
	CHECK(p != NULL);
	mt_prog_free(p);
}

TEST(sema_translated_args_errors)
{
	struct mt_diag d;
	struct mt_prog *p;

	/* a translated type nobody declares: a clear error, not int64_t */
	p = xl_compile("fbt::f:entry { trace(args[1]); }", &d);
	CHECK(p == NULL);
	CHECK_EQ_STR(d.tag, "D_XLATE_NONE");
	CHECK_EQ_STR(d.msg, "cannot translate args[1] from \"struct kt *\" to "
		     "\"nothere_t *\": no such type");
	mt_prog_free(p);
	/* a declared type with no translator from the native one */
	p = xl_compile("typedef struct { int q; } yt_t;\n"
		       "fbt::g:entry { trace(args[0]->q); }", &d);
	CHECK(p == NULL);
	CHECK_EQ_STR(d.tag, "D_XLATE_NONE");
	mt_prog_free(p);
	/* a member the translator does not define, as for xlate<> */
	p = xl_compile("fbt::f:entry { trace(args[0]->s[0]); }", &d);
	CHECK(p == NULL);
	CHECK_EQ_STR(d.tag, "D_XLATE_NOCONV");
	mt_prog_free(p);
	/* descriptions that disagree: args[0] stays int64_t */
	p = xl_compile("fbt::f:entry, fbt::g:entry { trace(args[0]); }", &d);
	CHECK(p != NULL);
	if (p)
		CHECK_EQ_STR(p->rec_info[0].ctype, "int64_t");
	mt_prog_free(p);
}

static struct mt_prog *lib_compile(const char *lib, const char *text,
				   struct mt_diag *d)
{
	static struct mt_opts o;
	struct mt_cc_src src = { text, "t.d", 0 };
	struct mt_cc_src l = { lib, "lib.d", 0 };
	struct mt_cc_input in = { 0 };

	mt_opts_init(&o);
	in.srcs = &src;
	in.nsrcs = 1;
	in.libs = &l;
	in.nlibs = 1;
	in.opts = &o;
	return mt_compile(&in, d);
}

TEST(sema_dlib)
{
	struct mt_diag d;
	struct mt_prog *p;

	/* the library's declarations are the program's; it may type a
	   built-in (curcpu) */
	p = lib_compile("typedef struct { int id; } ci_t;\n"
			"inline ci_t *curcpu = (ci_t *)alloca(sizeof (ci_t));\n"
			"inline int LIBV = 7;\n",
			"BEGIN { trace(curcpu->id); trace(LIBV); }", &d);
	CHECK(p != NULL);
	if (p)
		CHECK_EQ_STR(p->rec_info[0].ctype, "int");
	mt_prog_free(p);
	/* an error in the library names it, not the program */
	p = lib_compile("inline int X = nosuch;\n", "BEGIN { }", &d);
	CHECK(p == NULL);
	CHECK(d.lib != NULL && strcmp(d.lib, "lib.d") == 0);
	CHECK_EQ_INT(d.line, 1);
	CHECK_EQ_INT(d.src, -1);
	/* the program's errors are still the program's; a program may not
	   redefine a built-in */
	p = lib_compile("inline int LIBV = 7;\n", "BEGIN { trace(nosuch); }", &d);
	CHECK(p == NULL);
	CHECK(d.lib == NULL);
	CHECK_EQ_INT(d.src, 0);
	CHECK_EQ_STR(cc_fail("inline int curcpu = 1; BEGIN { }", &d), "D_DECL_IDRED");
}

MT_TEST_MAIN()
