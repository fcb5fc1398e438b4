/* The one escaping of others' strings for a terminal (common/esc.c). */
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
MT_TEST_MAIN()
