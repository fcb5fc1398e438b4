/* print(): values laid out by the compiler's type description. */
#include <stdlib.h>
#include <string.h>
#include "../mt_test.h"
#include "consumer/impl.h"

static char *g_buf;
static size_t g_len;

static const char *
show(const char *tdesc, const void *ptr, const void *data, uint32_t have)
{
	FILE *f;

	free(g_buf);
	g_buf = NULL;
	f = open_memstream(&g_buf, &g_len);
	print_tdesc(f, tdesc, ptr, data, have);
	fclose(f);
	return g_buf;
}

#define I44 "                                            "

TEST(struct_members_zero_skipped)
{
	struct { int32_t a; char b[3]; uint8_t pad; int32_t c; } v =
		{ 7, "hi", 0, 0 };
	uint64_t ptr = 0x1000;

	CHECK_EQ_STR(show("s12\"struct x\"{.a@0i4s\"int\";"
			  ".b@4a3\"char [3]\"i1s\"char\";.c@8i4s\"int\";}",
			  &ptr, &v, sizeof(v)),
		     "0x1000 = *\n"
		     I44 "(struct x) {\n"
		     I44 " .a = (int)7,\n"
		     I44 " .b = (char [3]) [\n"
		     I44 "  (char)'h',\n"
		     I44 "  (char)'i',\n"
		     I44 " ],\n"
		     I44 "}\n");
}

TEST(truncated_by_printsize)
{
	int64_t v[2] = { 1, 2 };
	uint64_t ptr = 0x2000;

	CHECK_EQ_STR(show("s16\"struct y\"{.x@0i8s\"long long\";"
			  ".y@8i8s\"long long\";}", &ptr, v, 8),
		     "0x2000 = *\n"
		     I44 "(struct y) {\n"
		     I44 " .x = (long long)1,\n"
		     I44 " ...\n"
		     I44 "}\n");
}

TEST(enum_and_bool)
{
	struct { int32_t e; uint8_t b; } v = { 2, 1 };

	CHECK_EQ_STR(show("s8\"struct z\"{.e@0e4\"enum eh\"{ONE=1,TWO=2,};"
			  ".b@4i1u\"bool\";}", NULL, &v, sizeof(v)),
		     I44 "(struct z) {\n"
		     I44 " .e = (enum eh)TWO,\n"
		     I44 " .b = (bool)1,\n"
		     I44 "}\n");
}

TEST(scalar)
{
	int32_t v = -5;

	CHECK_EQ_STR(show("i4s\"int\"", NULL, &v, 4), "(int)-5\n");
}

MT_TEST_MAIN()
