/* The probe-description parser shared by the compiler and the CLI. */
#include <string.h>
#include "../mt_test.h"
#include "machtrace/program.h"

static struct mt_pdesc pd;
static char buf[128];

static int
split(const char *s)
{
	snprintf(buf, sizeof(buf), "%s", s);
	memset(&pd, 0, sizeof(pd));
	return mt_pdesc_split(buf, &pd);
}

TEST(pdesc_full)
{
	CHECK_EQ_INT(split("fbt:mach:vm_fault:entry"), 4);
	CHECK_EQ_STR(pd.prov, "fbt");
	CHECK_EQ_STR(pd.mod, "mach");
	CHECK_EQ_STR(pd.func, "vm_fault");
	CHECK_EQ_STR(pd.name, "entry");
}

TEST(pdesc_right_aligned)
{
	CHECK_EQ_INT(split("BEGIN"), 1);
	CHECK_EQ_STR(pd.prov, "");
	CHECK_EQ_STR(pd.mod, "");
	CHECK_EQ_STR(pd.func, "");
	CHECK_EQ_STR(pd.name, "BEGIN");
	CHECK_EQ_INT(split("vm_fault:entry"), 2);
	CHECK_EQ_STR(pd.func, "vm_fault");
	CHECK_EQ_STR(pd.name, "entry");
	CHECK_EQ_INT(split("fbt::vm_fault:"), 4);
	CHECK_EQ_STR(pd.prov, "fbt");
	CHECK_EQ_STR(pd.mod, "");
	CHECK_EQ_STR(pd.name, "");
}

TEST(pdesc_escaped_colon)
{
	CHECK_EQ_INT(split("pid\\:1::f:entry"), 4);
	CHECK_EQ_STR(pd.prov, "pid\\:1");
	CHECK_EQ_STR(pd.func, "f");
}

TEST(pdesc_overspecified)
{
	CHECK_EQ_INT(split("a:b:c:d:e"), 5);
	CHECK_EQ_STR(pd.prov, "a");
	CHECK_EQ_STR(pd.func, "c");
	CHECK_EQ_STR(pd.name, "d:e");
}

/* A '/' belongs to a line description's file, and ends any other (a
   predicate): "line:vm/vm_fault.c", but "fbt::f:entry/arg0/". */
TEST(pdesc_file_slash)
{
	const char *a = "line:vm/vm_fault.c:vm_fault:1", *b = "fbt::f:entry/arg0/";
	const char *c = "line:vm/x.c:f:1/arg0/", *d = "line:vm/ x";

	CHECK(mt_pdesc_file_slash(a, 7, a + 7));
	CHECK(!mt_pdesc_file_slash(b, 12, b + 12));
	CHECK(!mt_pdesc_file_slash(c, 15, c + 15));
	CHECK(!mt_pdesc_file_slash(d, 7, d + 7));
}
MT_TEST_MAIN()
