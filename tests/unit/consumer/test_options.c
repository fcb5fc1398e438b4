/* Option parsing with dtrace's syntax and error texts. */
#include <stdlib.h>
#include "../mt_test.h"
#include "machtrace/abi.h"
#include "machtrace/options.h"

static struct mt_opts o;
static char err[256];
static const char *tag;

static int
set(const char *n, const char *v)
{
	err[0] = '\0';
	return mt_opts_set(&o, n, v, &tag, err, sizeof(err));
}

TEST(defaults)
{
	mt_opts_init(&o);
	CHECK_EQ_INT(o.bufsize, 4 << 20);
	CHECK_EQ_INT(o.aggsize, 4 << 20);
	CHECK_EQ_INT(o.strsize, 256);
	CHECK_EQ_INT(o.nspec, 1);
	CHECK_EQ_INT(o.bufpolicy, MT_BUFPOLICY_SWITCH);
	CHECK_EQ_INT(o.switchrate, 1000000000);
	CHECK_EQ_INT(o.quiet, 0);
}

TEST(sizes)
{
	mt_opts_init(&o);
	CHECK_EQ_INT(set("bufsize", "16k"), 0);
	CHECK_EQ_INT(o.bufsize, 16384);
	CHECK_EQ_INT(set("aggsize", "2m"), 0);
	CHECK_EQ_INT(o.aggsize, 2 << 20);
	CHECK_EQ_INT(set("dynvarsize", "1g"), 0);
	CHECK_EQ_INT(o.dynvarsize, 1ULL << 30);
	CHECK_EQ_INT(set("specsize", "0x100"), 0);
	CHECK_EQ_INT(o.specsize, 256);
	CHECK_EQ_INT(set("bufsize", "12q"), -1);
	CHECK_EQ_STR(err, "Invalid value for specified option");
	CHECK_EQ_INT(set("bufsize", "-1"), -1);
}

TEST(rates)
{
	mt_opts_init(&o);
	CHECK_EQ_INT(set("switchrate", "10hz"), 0);
	CHECK_EQ_INT(o.switchrate, 100000000);
	CHECK_EQ_INT(set("aggrate", "5ms"), 0);
	CHECK_EQ_INT(o.aggrate, 5000000);
	CHECK_EQ_INT(set("statusrate", "2s"), 0);
	CHECK_EQ_INT(o.statusrate, 2000000000ULL);
	CHECK_EQ_INT(set("cleanrate", "300"), 0);
	CHECK_EQ_INT(o.cleanrate, 300);
	CHECK_EQ_INT(set("aggrate", "0.5hz"), -1);
}

TEST(booleans_and_policies)
{
	mt_opts_init(&o);
	CHECK_EQ_INT(set("quiet", NULL), 0);
	CHECK_EQ_INT(o.quiet, 1);
	CHECK_EQ_INT(set("quiet", "no"), 0);
	CHECK_EQ_INT(o.quiet, 0);
	CHECK_EQ_INT(set("quiet", "um, no"), -1);
	CHECK_EQ_INT(set("bufpolicy", "ring"), 0);
	CHECK_EQ_INT(o.bufpolicy, MT_BUFPOLICY_RING);
	CHECK_EQ_INT(set("bufpolicy", "circular"), -1);
	CHECK_EQ_INT(set("errtags", NULL), 0);
	CHECK_EQ_INT(o.errtags, 1);
	CHECK_EQ_INT(set("errtags", "1"), -1);
}

TEST(errors)
{
	mt_opts_init(&o);
	CHECK_EQ_INT(set("Nixon", "1"), -1);
	CHECK_EQ_STR(err, "Invalid option name");
	CHECK_EQ_INT(set("stdc", "X"), -1);
	CHECK_EQ_STR(err, "Invalid value for specified option");
	CHECK_EQ_INT(set("version", "99.1"), -1);
	CHECK_EQ_STR(err, "Requested version is not supported by compiler");
	CHECK_EQ_INT(set("iregs", "9"), -1);
	CHECK_EQ_STR(err, "Invalid value for specified option");
	/* strsize needs room for one character and the NUL */
	CHECK_EQ_INT(set("strsize", "1"), -1);
	CHECK_EQ_STR(err, "Invalid value for specified option");
	CHECK_EQ_INT(set("strsize", "2"), 0);
}

TEST(pragma_context)
{
	mt_opts_init(&o);
	CHECK_EQ_INT(mt_opts_set_pragma(&o, "ldpath", "/x", &tag, err,
					sizeof(err)), -1);
	CHECK_EQ_STR(tag, "D_PRAGMA_OPTSET");
	CHECK_EQ_STR(err, "failed to set option 'ldpath' to '/x': "
		     "Option cannot be used from within a D program");
	CHECK_EQ_INT(mt_opts_set_pragma(&o, "strsize", "512", &tag, err,
					sizeof(err)), 0);
	CHECK_EQ_INT(o.strsize, 512);
}

TEST(active)
{
	mt_opts_init(&o);
	CHECK_EQ_INT(mt_opts_set_active(&o, "bufsize", "1m", err,
					sizeof(err)), -1);
	CHECK_EQ_STR(err, "Operation illegal when tracing is active");
	CHECK_EQ_INT(mt_opts_set_active(&o, "quiet", "1", err, sizeof(err)),
		     0);
	CHECK_EQ_INT(o.quiet, 1);
}

TEST(cpp_args)
{
	mt_opts_init(&o);
	CHECK_EQ_INT(set("define", "FOO=1"), 0);
	CHECK_EQ_INT(set("undef", "BAR"), 0);
	CHECK_EQ_INT(o.ncpp_args, 2);
	CHECK_EQ_STR(o.cpp_args[0], "-DFOO=1");
	CHECK_EQ_STR(o.cpp_args[1], "-UBAR");
	mt_opts_free(&o);
}

/*
 * mt_opts_image: the sizes an enabling gets are the table's defaults and
 * what -x set, with the rules the layers used to apply one by one.
 */
TEST(image_sizes)
{
	struct mt_options im;

	mt_opts_init(&o);
	mt_opts_image(&o, &im);
	CHECK_EQ_INT(im.bufsize, o.bufsize);
	CHECK_EQ_INT(im.specsize, mt_opts_default("specsize"));
	CHECK_EQ_INT(im.scratchsize, mt_opts_default("scratchsize"));
	CHECK_EQ_INT(im.strsize, mt_opts_default("strsize") + 1);
	CHECK_EQ_INT(im.nspec, 1);
	CHECK_EQ_INT(im.stackframes, mt_opts_default("stackframes"));
	CHECK_EQ_INT(im.ncpus, 1);
	CHECK_EQ_INT(im.flags, 0);
	CHECK_EQ_INT(set("strsize", "100"), 0);
	CHECK_EQ_INT(set("scratchsize", "0"), 0);
	CHECK_EQ_INT(set("nspec", "no"), 0);		/* unset: the default */
	CHECK_EQ_INT(set("destructive", NULL), 0);
	mt_opts_image(&o, &im);
	CHECK_EQ_INT(im.strsize, 101);
	CHECK_EQ_INT(im.scratchsize, 64 << 10);	/* what scratchsize=0 gave */
	CHECK_EQ_INT(im.nspec, mt_opts_default("nspec"));
	CHECK_EQ_INT(im.flags, MT_OPT_F_DESTRUCTIVE);
	mt_opts_image(NULL, &im);
	CHECK_EQ_INT(im.specsize, mt_opts_default("specsize"));
	CHECK_EQ_INT(mt_opts_default("nosuchoption"), MT_OPT_UNSET);
}

/* strsize plus its NUL must fit the image's 32 bits. */
TEST(strsize_bounds)
{
	mt_opts_init(&o);
	CHECK_EQ_INT(set("strsize", "4294967294"), 0);
	CHECK_EQ_INT(mt_opts_strsize(o.strsize), 4294967295u);
	CHECK_EQ_INT(set("strsize", "4294967295"), -1);
	CHECK_EQ_STR(err, "Value too large for defined data type");
	CHECK_EQ_INT(set("strsize", "1"), -1);
}

MT_TEST_MAIN()
