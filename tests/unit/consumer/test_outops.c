/*
 * The consumer's two outputs (consumer/impl.h's out_ops): the actions
 * call every operation without asking which format is on, so each format
 * must provide each one.
 */
#include "../mt_test.h"
#include "consumer/impl.h"

typedef void (*op_fn)(void);

static int
ops_missing(const struct out_ops *o)
{
	op_fn f[sizeof(*o) / sizeof(op_fn)];
	int missing = 0;

	memcpy(f, o, sizeof(f));
	for (size_t i = 0; i < sizeof(f) / sizeof(*f); i++)
		missing += f[i] == NULL;
	return missing;
}

TEST(outops_text_complete)
{
	CHECK_EQ_INT(sizeof(struct out_ops) % sizeof(op_fn), 0);
	CHECK_EQ_INT(ops_missing(&out_text), 0);
}

TEST(outops_json_complete)
{
	CHECK_EQ_INT(ops_missing(&out_json), 0);
}

TEST(outops_distinct)
{
	CHECK(out_text.trace != out_json.trace);
	CHECK(out_text.finish != out_json.finish);
}
MT_TEST_MAIN()
