/*
 * The DWARF location expression compiler (targets/mach/image/dwloc.c)
 * over synthetic expressions: each operation it takes gives the D text
 * that computes the location at a probe from regs[] (rdi is regs[4], rbp
 * regs[10], rsp regs[15]), an unsupported or malformed one a clear error.
 */
#include <dwarf.h>
#include <string.h>

#include "targets/mach/image/dwloc.h"
#include "tests/unit/mt_test.h"

#define OP(a) { (a), 0, 0, NULL }
#define OP1(a, x) { (a), (uint64_t)(x), 0, NULL }

static struct dwloc_res res;
static char err[200];
/* CFA = rsp + 16 at the site */
static const struct dwloc_frame frame = { 7, 16, NULL, 0 };

static int run(const struct dwloc_op *ops, size_t n, uint64_t size)
{
	memset(&res, 0, sizeof(res));
	err[0] = 0;
	return dwloc_compile(ops, n, &frame, size, &res, err, sizeof(err));
}

#define RUN(ops, size) run(ops, sizeof(ops) / sizeof(ops[0]), size)

TEST(registers)
{
	struct dwloc_op r5[] = { OP(DW_OP_reg5) }, rx[] = { OP1(DW_OP_regx, 6) };

	CHECK_EQ_INT(RUN(r5, 8), 0);
	CHECK_EQ_INT(res.kind, DWLOC_VALUE);
	CHECK(!strcmp(res.text, "regs[4]"));
	CHECK_EQ_INT(RUN(rx, 8), 0);
	CHECK(!strcmp(res.text, "regs[10]"));
}

TEST(based_registers)
{
	struct dwloc_op b[] = { OP1(DW_OP_breg6, -24) };
	struct dwloc_op bx[] = { { DW_OP_bregx, 7, 8, NULL } };

	CHECK_EQ_INT(RUN(b, 8), 0);
	CHECK_EQ_INT(res.kind, DWLOC_ADDR);
	CHECK(!strcmp(res.text, "(regs[10] + -24)"));
	CHECK_EQ_INT(RUN(bx, 8), 0);
	CHECK(!strcmp(res.text, "(regs[15] + 8)"));
}

TEST(fbreg_through_the_cfa)
{
	struct dwloc_op f[] = { OP1(DW_OP_fbreg, -40) };
	struct dwloc_op c[] = { OP(DW_OP_call_frame_cfa) };
	struct dwloc_op fb[] = { OP1(DW_OP_breg6, 16) };
	struct dwloc_frame rbp = { 7, 16, fb, 1 };

	CHECK_EQ_INT(RUN(f, 8), 0);
	CHECK_EQ_INT(res.kind, DWLOC_ADDR);
	CHECK(!strcmp(res.text, "((regs[15] + 16) + -40)"));
	CHECK_EQ_INT(RUN(c, 8), 0);
	CHECK(!strcmp(res.text, "(regs[15] + 16)"));
	CHECK_EQ_INT(dwloc_compile(f, 1, &rbp, 8, &res, err, sizeof(err)), 0);
	CHECK(!strcmp(res.text, "((regs[10] + 16) + -40)"));
}

TEST(addr_deref_plus_uconst)
{
	struct dwloc_op a[] = { OP1(DW_OP_addr, 0xffffffff81234560ULL), OP(DW_OP_deref),
				OP1(DW_OP_plus_uconst, 8) };
	struct dwloc_op d[] = { OP1(DW_OP_breg3, 0), OP1(DW_OP_deref_size, 4),
				OP(DW_OP_stack_value) };

	CHECK_EQ_INT(RUN(a, 8), 0);
	CHECK_EQ_INT(res.kind, DWLOC_ADDR);
	CHECK(!strcmp(res.text, "((uint64_t)*(uint64_t *)0xffffffff81234560 + 8)"));
	CHECK_EQ_INT(RUN(d, 4), 0);
	CHECK_EQ_INT(res.kind, DWLOC_VALUE);
	CHECK(!strcmp(res.text, "(uint64_t)*(uint32_t *)(regs[9] + 0)"));
}

TEST(literals_constants_arithmetic)
{
	struct dwloc_op e[] = { OP(DW_OP_lit3), OP1(DW_OP_const1s, -2), OP(DW_OP_mul),
				OP1(DW_OP_constu, 100), OP(DW_OP_plus), OP(DW_OP_lit1),
				OP(DW_OP_shl), OP(DW_OP_stack_value) };
	struct dwloc_op s[] = { OP(DW_OP_reg0), OP(DW_OP_lit4), OP(DW_OP_shra),
				OP(DW_OP_neg), OP(DW_OP_stack_value) };

	CHECK_EQ_INT(RUN(e, 8), 0);
	CHECK_EQ_INT(res.kind, DWLOC_VALUE);
	CHECK(!strcmp(res.text, "((uint64_t)((3 * (-2)) + 0x64) << (uint64_t)1)"));
	/* DW_OP_reg0 then more ops: GCC writes breg for that; still rax */
	CHECK_EQ_INT(RUN(s, 8), 0);
	CHECK(!strcmp(res.text, "(-((int64_t)regs[0] >> (int64_t)4))"));
}

TEST(stack_operations)
{
	struct dwloc_op e[] = { OP(DW_OP_lit1), OP(DW_OP_lit2), OP(DW_OP_swap),
				OP(DW_OP_minus), OP(DW_OP_dup), OP(DW_OP_over),
				OP(DW_OP_drop), OP(DW_OP_xor), OP(DW_OP_stack_value) };

	CHECK_EQ_INT(RUN(e, 8), 0);
	CHECK(!strcmp(res.text, "((2 - 1) ^ (2 - 1))"));
}

TEST(implicit_value)
{
	static const uint8_t bytes[4] = { 0x78, 0x56, 0x34, 0x12 };
	struct dwloc_op e[] = { { DW_OP_implicit_value, 4, 0, bytes } };
	struct dwloc_op big[] = { { DW_OP_implicit_value, 16, 0, bytes } };

	CHECK_EQ_INT(RUN(e, 4), 0);
	CHECK_EQ_INT(res.kind, DWLOC_VALUE);
	CHECK(!strcmp(res.text, "0x12345678"));
	CHECK_EQ_INT(RUN(big, 16), -1);
	CHECK(strstr(err, "implicit_value") != NULL);
}

TEST(pieces)
{
	/* low half in edi, high half in memory at rbp-8 */
	struct dwloc_op e[] = { OP(DW_OP_reg5), OP1(DW_OP_piece, 4),
				OP1(DW_OP_breg6, -8), OP1(DW_OP_piece, 4) };
	struct dwloc_op gap[] = { OP(DW_OP_reg5), OP1(DW_OP_piece, 4),
				  OP1(DW_OP_piece, 4) };
	struct dwloc_op wide[] = { OP(DW_OP_reg5), OP1(DW_OP_piece, 8),
				   OP(DW_OP_reg4), OP1(DW_OP_piece, 8) };

	CHECK_EQ_INT(RUN(e, 8), 0);
	CHECK_EQ_INT(res.kind, DWLOC_VALUE);
	CHECK(!strcmp(res.text, "((uint64_t)(uint32_t)regs[4] | "
		      "((uint64_t)*(uint32_t *)(regs[10] + -8) << 32))"));
	CHECK_EQ_INT(RUN(gap, 8), -1);
	CHECK(strstr(err, "optimized out") != NULL);
	CHECK_EQ_INT(RUN(wide, 16), -1);
	CHECK(strstr(err, "more than 8 bytes") != NULL);
	/* a variable larger than its pieces is partly optimized out */
	CHECK_EQ_INT(RUN(e, 16), -1);
}

/* GCC's value at the function's entry (DWARF 5's and the GNU opcode)
   cannot be read at the site: the variable is optimized out there */
TEST(entry_value_is_optimized_out)
{
	struct dwloc_op ev[] = { OP1(DW_OP_entry_value, 1), OP(DW_OP_stack_value) };
	struct dwloc_op gnu[] = { OP1(DW_OP_GNU_entry_value, 1), OP1(DW_OP_plus_uconst, 8),
				  OP(DW_OP_stack_value) };

	CHECK_EQ_INT(RUN(ev, 8), -1);
	CHECK(!strcmp(err, "optimized out"));
	CHECK_EQ_INT(RUN(gnu, 8), -1);
	CHECK(!strcmp(err, "optimized out"));
}

TEST(unsupported_and_malformed)
{
	struct dwloc_op ev[] = { OP(DW_OP_form_tls_address) };
	struct dwloc_op r16[] = { OP1(DW_OP_regx, 17) };
	struct dwloc_op empty[] = { OP(DW_OP_plus) };

	CHECK_EQ_INT(RUN(ev, 8), -1);
	CHECK(strstr(err, "0x9b is not supported") != NULL);
	CHECK_EQ_INT(RUN(r16, 8), -1);
	CHECK(strstr(err, "register 17") != NULL);
	CHECK_EQ_INT(RUN(empty, 8), -1);
	CHECK(strstr(err, "empty stack") != NULL);
	CHECK_EQ_INT(dwloc_compile(NULL, 0, &frame, 8, &res, err, sizeof(err)), -1);
	CHECK(!strcmp(err, "optimized out"));
}

MT_TEST_MAIN()
