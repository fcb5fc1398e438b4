/*
 * The JSON writer of -xoformat=json: escaping (control characters, quotes,
 * bytes that are not UTF-8), nesting and separators, and the distribution
 * rows the JSON buckets are made of (the same rows as dtrace's table).
 */
#include <stdlib.h>
#include <string.h>
#include "../mt_test.h"
#include "machtrace/consumer.h"
#include "machtrace/json.h"

static char *g_buf;
static size_t g_len;

static FILE *
mem(void)
{
	free(g_buf);
	g_buf = NULL;
	return open_memstream(&g_buf, &g_len);
}

static const char *
done(FILE *f)
{
	fclose(f);
	return g_buf;
}

static const char *
esc(const char *s, size_t n)
{
	FILE *f = mem();

	mt_json_escape(f, s, n);
	return done(f);
}

TEST(escape_quotes_backslash)
{
	CHECK_EQ_STR(esc("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
}

TEST(escape_control_chars)
{
	CHECK_EQ_STR(esc("\n\t\r\b\f", 5), "\"\\n\\t\\r\\b\\f\"");
	CHECK_EQ_STR(esc("\x01\x1f\x7f", 3), "\"\\u0001\\u001f\\u007f\"");
}

TEST(escape_nul_inside)
{
	CHECK_EQ_STR(esc("a\0b", 3), "\"a\\u0000b\"");
}

TEST(utf8_passes_through)
{
	/* é (2 bytes), € (3 bytes), U+1F600 (4 bytes) */
	CHECK_EQ_STR(esc("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9),
		     "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
}

TEST(non_utf8_bytes_escaped)
{
	/* a lone continuation byte, a truncated sequence, an overlong
	   form, a surrogate, a byte above U+10FFFF's leads */
	CHECK_EQ_STR(esc("\x80", 1), "\"\\u0080\"");
	CHECK_EQ_STR(esc("\xe2\x82", 2), "\"\\u00e2\\u0082\"");
	CHECK_EQ_STR(esc("\xc0\xaf", 2), "\"\\u00c0\\u00af\"");
	CHECK_EQ_STR(esc("\xed\xa0\x80", 3), "\"\\u00ed\\u00a0\\u0080\"");
	CHECK_EQ_STR(esc("\xff", 1), "\"\\u00ff\"");
	CHECK_EQ_STR(esc("\xc3\xa9\xff", 3), "\"\xc3\xa9\\u00ff\"");
}

TEST(nesting_and_separators)
{
	struct mt_json j;
	FILE *f = mem();

	mt_json_init(&j, f, 0);
	mt_json_open(&j, NULL, 0);
	mt_json_int(&j, "a", -1);
	mt_json_open(&j, "l", 1);
	mt_json_uint(&j, "ignored", 18446744073709551615ULL);
	mt_json_strz(&j, NULL, "s");
	mt_json_open(&j, NULL, 0);
	mt_json_close(&j);
	mt_json_open(&j, NULL, 1);
	mt_json_close(&j);
	mt_json_close(&j);
	mt_json_close(&j);
	CHECK_EQ_INT(j.err, 0);
	CHECK_EQ_INT(j.depth, 0);
	CHECK_EQ_STR(done(f), "{\n  \"a\": -1,\n  \"l\": [\n"
		     "    18446744073709551615,\n    \"s\",\n    {},\n    []\n"
		     "  ]\n}\n");
}

TEST(keys_escaped)
{
	struct mt_json j;
	FILE *f = mem();

	mt_json_init(&j, f, 0);
	mt_json_open(&j, NULL, 0);
	mt_json_int(&j, "k\"\n", 1);
	mt_json_close(&j);
	CHECK_EQ_STR(done(f), "{\n  \"k\\\"\\n\": 1\n}\n");
}

/* Too deep: left out, still balanced, err set. */
TEST(depth_limit_keeps_balance)
{
	struct mt_json j;
	FILE *f = mem();
	const char *s;
	int opens = 0, closes = 0;

	mt_json_init(&j, f, 0);
	for (int i = 0; i < MT_JSON_WRITE_DEPTH + 5; i++)
		mt_json_open(&j, "x", i & 1);
	mt_json_int(&j, "deep", 1);
	for (int i = 0; i < MT_JSON_WRITE_DEPTH + 5; i++)
		mt_json_close(&j);
	s = done(f);
	CHECK_EQ_INT(j.err, 1);
	CHECK_EQ_INT(j.depth, 0);
	for (; *s; s++) {
		opens += *s == '{' || *s == '[';
		closes += *s == '}' || *s == ']';
	}
	CHECK_EQ_INT(opens, closes);
	CHECK(strstr(g_buf, "deep") == NULL);
}

/* Compact: no whitespace, no newline at the end; a container of lines
   puts each member, and its close, on a line of its own. */
TEST(compact_layout)
{
	struct mt_json j;
	FILE *f = mem();

	mt_json_init(&j, f, MT_JSON_COMPACT);
	mt_json_open(&j, NULL, MT_JSON_OBJECT);
	mt_json_bool(&j, "t", 1);
	mt_json_bool(&j, "f", 0);
	mt_json_null(&j, "n");
	mt_json_fixed(&j, "x", 1.5, 3);
	mt_json_fixed(&j, "inf", 1.0 / 0.0, 3);
	mt_json_open(&j, "ev", MT_JSON_ARRAY | MT_JSON_LINES);
	mt_json_open(&j, NULL, MT_JSON_OBJECT);
	mt_json_int(&j, "a", 1);
	mt_json_close(&j);
	mt_json_open(&j, NULL, MT_JSON_ARRAY);
	mt_json_int(&j, NULL, 2);
	mt_json_int(&j, NULL, 3);
	mt_json_close(&j);
	mt_json_close(&j);
	mt_json_open(&j, "none", MT_JSON_ARRAY | MT_JSON_LINES);
	mt_json_close(&j);
	mt_json_close(&j);
	CHECK_EQ_INT(j.err, 0);
	CHECK_EQ_STR(done(f), "{\"t\":true,\"f\":false,\"n\":null,"
		     "\"x\":1.500,\"inf\":null,\"ev\":[\n{\"a\":1},\n[2,3]\n],"
		     "\"none\":[\n]}");
}

/* Script mode: neither a key nor a value can close a <script> element. */
TEST(script_mode_escapes_keys_and_values)
{
	struct mt_json j;
	FILE *f = mem();

	mt_json_init(&j, f, MT_JSON_COMPACT | MT_JSON_SCRIPT);
	mt_json_open(&j, NULL, MT_JSON_OBJECT);
	mt_json_strz(&j, "</script>", "</script><b>&");
	mt_json_close(&j);
	CHECK_EQ_STR(done(f), "{\"\\u003c/script\\u003e\":"
		     "\"\\u003c/script\\u003e\\u003cb\\u003e\\u0026\"}");
	CHECK(strchr(g_buf, '<') == NULL);
}

/* The report's flame tree nests two levels a frame, 256 frames deep. */
TEST(deep_nesting_written_whole)
{
	struct mt_json j;
	FILE *f = mem();
	const char *s;
	int n = 0;

	mt_json_init(&j, f, MT_JSON_COMPACT);
	for (int i = 0; i < 2 * 256 + 2; i++)
		mt_json_open(&j, i & 1 ? "c" : NULL, i & 1);
	mt_json_int(&j, NULL, 7);
	for (int i = 0; i < 2 * 256 + 2; i++)
		mt_json_close(&j);
	CHECK_EQ_INT(j.err, 0);
	s = done(f);
	CHECK(strstr(s, "[7]") != NULL);
	for (; *s; s++)
		n += *s == '[';
	CHECK_EQ_INT(n, 256 + 1);
}

static char g_rows[512];

static void
row(void *arg, const char *label, int64_t count)
{
	size_t n = strlen(g_rows);

	snprintf(g_rows + n, sizeof(g_rows) - n, "%s=%lld;", label,
		 (long long)count);
}

TEST(dist_rows_match_table)
{
	int64_t b[MT_QUANTIZE_NBUCKETS] = { 0 };
	struct mt_agg a = { MT_AGG_QUANTIZE, 8, MT_QUANTIZE_NBUCKETS, 0,
			    { 0 } };

	b[MT_QUANTIZE_ZERO + 3] = 6;	/* [4, 8) */
	g_rows[0] = '\0';
	mt_dist_rows(&a, b, 2, row, NULL);
	CHECK_EQ_STR(g_rows, "2=0;4=3;8=0;");
}

TEST(dist_rows_lquantize_edges)
{
	/* lquantize(x, 0, 10, 5): < 0, 0, 5, >= 10 */
	int64_t b[4] = { 1, 0, 0, 2 };
	struct mt_agg a = { MT_AGG_LQUANTIZE, 8, 4, 0, { 0, 10, 5, 0 } };

	g_rows[0] = '\0';
	mt_dist_rows(&a, b, 1, row, NULL);
	CHECK_EQ_STR(g_rows, "< 0=1;0=0;5=0;>= 10=2;");
}

MT_TEST_MAIN()
