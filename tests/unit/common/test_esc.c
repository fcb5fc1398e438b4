/*
 * The one set of escapers for others' strings (common/esc.c): for a
 * terminal, for JSON inside an HTML <script> element, for HTML and XML.
 * (mt_json_escape itself: tests/unit/consumer/test_json.c.)
 */
#include <stdlib.h>
#include <string.h>
#include "../mt_test.h"
#include "machtrace/esc.h"

TEST(esc_controls)
{
	char buf[64];

	CHECK_EQ_STR(mt_esc_str(buf, sizeof buf, "\033[2Jx\ty\n\177\200"),
		     "\\033[2Jx\\ty\\n\\177\\200");
	CHECK_EQ_STR(mt_esc_str(buf, sizeof buf, "a\\b\"c'"), "a\\b\"c'");
}

/* dtrace's %S: quotes and backslashes too; 4 bytes a byte at most. */
TEST(esc_quoted)
{
	char buf[4 * 6 + 1];

	CHECK_EQ_STR(mt_esc_quoted(buf, sizeof buf, "a\\b\"c'"),
		     "a\\\\b\\\"c\\'");
	CHECK_EQ_STR(mt_esc_quoted(buf, sizeof buf, "\001\002\003\004\005\006"),
		     "\\001\\002\\003\\004\\005\\006");
}

TEST(esc_truncates_whole)
{
	char buf[8];

	/* "ab" + "\033" is 6 bytes; the next escape does not fit whole */
	CHECK_EQ_STR(mt_esc_str(buf, sizeof buf, "ab\033\033"), "ab\\033");
}

TEST(esc_quotes)
{
	char e[5];

	mt_esc_char('"', e, 1);
	CHECK_EQ_STR(e, "\\\"");
	mt_esc_char('"', e, 0);
	CHECK_EQ_STR(e, "\"");
	mt_esc_char('\0', e, 1);
	CHECK_EQ_STR(e, "\\000");
}

static char *g_buf;
static size_t g_len;

/* What fn wrote for s, NUL-terminated (the last call's buffer). */
static const char *
out(void (*fn)(FILE *, const char *), const char *s)
{
	FILE *f;

	free(g_buf);
	g_buf = NULL;
	if ((f = open_memstream(&g_buf, &g_len)) == NULL)
		return NULL;
	fn(f, s);
	fclose(f);
	return g_buf;
}

/* A task name a hostile guest chose: a closing tag, an entity, control
   characters, a byte that is not UTF-8 and a valid é. */
/* mt_json_escape_script for a NUL-terminated s, as out() calls it. */
static void
script_z(FILE *fp, const char *s)
{
	mt_json_escape_script(fp, s, strlen(s));
}

static const char hostile[] = "</script><b a=\"x\">&amp;\x01\n\t\x7f\xff\xc3\xa9";

TEST(esc_json_z)
{
	CHECK_EQ_STR(out(mt_json_escapez, NULL), "\"\"");
	CHECK_EQ_STR(out(mt_json_escapez, "a<b"), "\"a<b\"");
	CHECK_EQ_STR(out(mt_json_escapez, "\x01\xff"), "\"\\u0001\\u00ff\"");
}

TEST(esc_json_script)
{
	const char *s = out(script_z, hostile);

	CHECK_EQ_STR(s, "\"\\u003c/script\\u003e\\u003cb a=\\\"x\\\"\\u003e"
		     "\\u0026amp;\\u0001\\n\\t\\u007f\\u00ff\xc3\xa9\"");
	/* nothing can close the <script> element or open a tag */
	CHECK(strchr(s, '<') == NULL && strchr(s, '>') == NULL);
	CHECK_EQ_STR(out(script_z, "</SCRIPT"), "\"\\u003c/SCRIPT\"");
}

TEST(esc_html)
{
	/* control bytes but tab dropped, non-UTF-8 as a character reference */
	CHECK_EQ_STR(out(mt_html_escape, hostile),
		     "&lt;/script&gt;&lt;b a=&quot;x&quot;&gt;&amp;amp;\t\x7f"
		     "&#xff;\xc3\xa9");
	CHECK_EQ_STR(out(mt_html_escape, NULL), "");
	/* a cut UTF-8 sequence at the end */
	CHECK_EQ_STR(out(mt_html_escape, "x\xe2\x82"), "x&#xe2;&#x82;");
}
MT_TEST_MAIN()
