/* The one symbol protocol (consumer/sym.c): a target's sym and usym ops
   give (module, function, offset) and the consumer alone makes the text,
   so a function whose name holds a '+' (C++'s operator+) is printed whole
   in every style and its offset is the target's. */
#include <stdint.h>
#include "../mt_test.h"
#include "machtrace/consumer.h"
#include "machtrace/program.h"

#define FUNC_PC	0x1000		/* "prog`operator+" at offset 0 */
#define HOLE_PC	0x2000		/* in prog, in no function */

static int
fake_sym(struct mt_target *t, uint64_t pc, const char **mod,
	 const char **func, uint64_t *off)
{
	if (pc < FUNC_PC || pc >= HOLE_PC + 0x100)
		return -1;
	*mod = "prog";
	*func = pc < HOLE_PC ? "operator+" : NULL;
	*off = pc < HOLE_PC ? pc - FUNC_PC : 0;
	return 0;
}

static int
fake_usym(struct mt_target *t, int64_t pid, uint64_t pc, const char **mod,
	  const char **func, uint64_t *off)
{
	return pid == 7 ? fake_sym(t, pc, mod, func, off) : -1;
}

static const struct mt_target_ops ops = {
	.name = "fake", .sym = fake_sym, .usym = fake_usym,
};

TEST(sym_names_with_plus)
{
	struct mt_target t = { &ops, NULL, "" };
	struct mt_symsrc src = { &t, NULL, NULL };
	char buf[128];
	uint64_t off = 99;

	mt_sym_format(&src, FUNC_PC, MT_SYM_FUNC, buf, sizeof buf);
	CHECK_EQ_STR(buf, "prog`operator+");
	mt_sym_format(&src, FUNC_PC, MT_SYM_PC, buf, sizeof buf);
	CHECK_EQ_STR(buf, "prog`operator+");
	mt_sym_format(&src, FUNC_PC + 0x1c, MT_SYM_PC, buf, sizeof buf);
	CHECK_EQ_STR(buf, "prog`operator++0x1c");
	mt_sym_format(&src, FUNC_PC + 0x1c, MT_SYM_FUNC, buf, sizeof buf);
	CHECK_EQ_STR(buf, "prog`operator+");
	mt_sym_format(&src, FUNC_PC + 0x1c, MT_SYM_MOD, buf, sizeof buf);
	CHECK_EQ_STR(buf, "prog");
	CHECK_EQ_INT(mt_sym_offset(&src, FUNC_PC + 0x1c, &off), 0);
	CHECK_EQ_INT(off, 0x1c);
	CHECK_EQ_INT(mt_sym_offset(&src, FUNC_PC, &off), 0);
	CHECK_EQ_INT(off, 0);
}

TEST(sym_module_only_and_unknown)
{
	struct mt_target t = { &ops, NULL, "" };
	struct mt_symsrc src = { &t, NULL, NULL };
	char buf[128];
	uint64_t off = 99;

	mt_sym_format(&src, HOLE_PC + 4, MT_SYM_PC, buf, sizeof buf);
	CHECK_EQ_STR(buf, "prog`0x2004");
	mt_sym_format(&src, HOLE_PC + 4, MT_SYM_FUNC, buf, sizeof buf);
	CHECK_EQ_STR(buf, "prog`0x2004");
	CHECK_EQ_INT(mt_sym_offset(&src, HOLE_PC + 4, &off), 0);
	CHECK_EQ_INT(off, 0);
	mt_sym_format(&src, 0x10, MT_SYM_PC, buf, sizeof buf);
	CHECK_EQ_STR(buf, "0x10");
	CHECK_EQ_INT(mt_sym_offset(&src, 0x10, &off), -1);
}

TEST(usym_names_with_plus)
{
	struct mt_target t = { &ops, NULL, "" };
	struct mt_symsrc src = { &t, NULL, NULL };
	char buf[128];
	uint64_t off = 99;

	mt_usym_format(&src, 7, FUNC_PC, MT_SYM_FUNC, buf, sizeof buf);
	CHECK_EQ_STR(buf, "prog`operator+");
	mt_usym_format(&src, 7, FUNC_PC + 3, MT_SYM_PC, buf, sizeof buf);
	CHECK_EQ_STR(buf, "prog`operator++0x3");
	CHECK_EQ_INT(mt_usym_offset(&src, 7, FUNC_PC + 3, &off), 0);
	CHECK_EQ_INT(off, 3);
	mt_usym_format(&src, 8, FUNC_PC, MT_SYM_PC, buf, sizeof buf);
	CHECK_EQ_STR(buf, "0x1000");
	CHECK_EQ_INT(mt_usym_offset(&src, 8, FUNC_PC, &off), -1);
}
MT_TEST_MAIN()
