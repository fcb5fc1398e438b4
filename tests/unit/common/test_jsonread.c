/*
 * The one JSON reader (common/jsonread.c) on malformed and hostile input:
 * its size, its nesting and its numbers are bounded, and what the writer
 * escapes reads back.
 */
#include <stdlib.h>
#include <string.h>
#include "../mt_test.h"
#include "machtrace/json.h"

static char why[256];

/* Whether s parses (why says what did not). */
static int
parses(const char *s)
{
	json_t *j = mt_json_parse(s, strlen(s), why, sizeof(why));

	json_decref(j);
	return j != NULL;
}

/* n levels of [ ... ] around 1. */
static char *
nested(int n)
{
	char *s = malloc(2 * (size_t)n + 2);

	memset(s, '[', (size_t)n);
	s[n] = '1';
	memset(s + n + 1, ']', (size_t)n);
	s[2 * n + 1] = '\0';
	return s;
}

TEST(read_depth_bounded)
{
	char *ok = nested(MT_JSON_DEPTH), *deep = nested(MT_JSON_DEPTH + 1);
	char *huge = nested(100000);

	CHECK(parses(ok));
	CHECK(!parses(deep));
	CHECK(strstr(why, "nested deeper than 32") != NULL);
	CHECK(!parses(huge));
	free(ok), free(deep), free(huge);
	/* brackets inside strings, escaped quotes included, open nothing */
	CHECK(parses("[\"\\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"]"));
}

TEST(read_size_bounded)
{
	char text[] = "{\"a\": \"0123456789\"}";
	size_t n = strlen(text);
	FILE *f = fmemopen(text, n, "r");
	json_t *j;

	CHECK((j = mt_json_read(f, n, why, sizeof(why))) != NULL);
	json_decref(j);
	fclose(f);
	f = fmemopen(text, n, "r");
	CHECK(mt_json_read(f, n - 1, why, sizeof(why)) == NULL);
	fclose(f);
	CHECK(strstr(why, "larger than") != NULL);
}

TEST(read_malformed)
{
	CHECK(!parses("{\"a\":"));
	CHECK(strncmp(why, "line 1 column", 13) == 0);
	CHECK(!parses("\"\\u12"));		/* a cut \u escape */
	CHECK(!parses("\"abc\\"));		/* a trailing backslash */
	CHECK(!parses("{\"a\": 1, \"a\": 2}"));	/* duplicate keys */
	CHECK(!parses(""));
	CHECK(!parses("[1] [2]"));
}

TEST(read_numbers_bounded)
{
	json_t *j;
	uint64_t v = 7;

	CHECK(!parses("1e400"));
	CHECK(!parses("123456789012345678901234567890"));
	const char *t = "[9007199254740992, 9007199254740993, -1, 1.5, \"3\", 3]";

	j = mt_json_parse(t, strlen(t), why, sizeof(why));
	CHECK(j != NULL);
	CHECK_EQ_INT(mt_json_whole(json_array_get(j, 0), MT_JSON_MAX_WHOLE, &v), 0);
	CHECK(v == MT_JSON_MAX_WHOLE);
	CHECK_EQ_INT(mt_json_whole(json_array_get(j, 1), MT_JSON_MAX_WHOLE, &v), -1);
	CHECK_EQ_INT(mt_json_whole(json_array_get(j, 2), MT_JSON_MAX_WHOLE, &v), -1);
	CHECK_EQ_INT(mt_json_whole(json_array_get(j, 3), MT_JSON_MAX_WHOLE, &v), -1);
	CHECK_EQ_INT(mt_json_whole(json_array_get(j, 4), MT_JSON_MAX_WHOLE, &v), -1);
	CHECK_EQ_INT(mt_json_whole(json_array_get(j, 5), 2, &v), -1);
	CHECK_EQ_INT(mt_json_whole(json_array_get(j, 5), 3, &v), 0);
	CHECK_EQ_INT(v, 3);
	json_decref(j);
}

/* A hostile guest string written by mt_json_escape reads back, each byte
   that is not UTF-8 as the Latin-1 character it names. */
TEST(read_what_the_writer_escaped)
{
	const char s[] = "a\"\\\x01\n\xff\xc3\xa9</script>";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *j;

	fputc('[', f);
	mt_json_escape(f, s, sizeof(s) - 1);
	fputc(']', f);
	fclose(f);
	j = mt_json_parse(buf, len, why, sizeof(why));
	CHECK(j != NULL && json_is_string(json_array_get(j, 0)));
	CHECK_EQ_STR(json_string_value(json_array_get(j, 0)), "a\"\\\x01\n\xc3\xbf\xc3\xa9</script>");
	json_decref(j);
	free(buf);
}
MT_TEST_MAIN()
