/*
 * The usdt and pid providers' host side (targets/mach/live/umod.c,
 * uemul.c): the stapsdt note and argument parser, against machload's own
 * notes and hand-made inputs, and the classification of the instructions
 * a user site may displace (what the blob emulates, what is refused).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machtrace/mach.h"
#include "targets/mach/live/umod.h"
#include "tests/unit/mt_test.h"

static int fake_sym(void *arg, const char *name, uint64_t *va)
{
	(void)arg;
	if (strcmp(name, "phases") == 0) {
		*va = 0x40c000;
		return 0;
	}
	return -1;
}

static int parse(const char *s, struct lk_uarg *a, char *err)
{
	return usdt_parse_args(s, a, LK_UARGS_MAX, fake_sym, NULL, err, 200);
}

TEST(args_registers_memory_immediates)
{
	struct lk_uarg a[LK_UARGS_MAX];
	char err[200];

	CHECK_EQ_INT(parse("-4@%edi 8@%rsi -8@16(%rbp) 4@$5", a, err), 4);
	CHECK(a[0].size == -4 && a[0].kind == LK_UA_REG && a[0].reg == 5);
	CHECK(a[1].size == 8 && a[1].kind == LK_UA_REG && a[1].reg == 4);
	CHECK(a[2].size == -8 && a[2].kind == LK_UA_MEM && a[2].reg == 6 && a[2].val == 16 &&
	      a[2].idx == LK_UA_NOREG);
	CHECK(a[3].size == 4 && a[3].kind == LK_UA_IMM && a[3].val == 5);
	CHECK_EQ_INT(parse("8@-16(%rsp) 2@%r9w 1@%ah 4@$-3", a, err), 4);
	CHECK(a[0].kind == LK_UA_MEM && a[0].reg == 7 && a[0].val == -16);
	CHECK(a[1].size == 2 && a[1].reg == 9);
	CHECK(a[2].reg == 0 && a[2].shift == 8);
	CHECK(a[3].kind == LK_UA_IMM && a[3].val == -3);
}

TEST(args_symbols_index_and_old_format)
{
	struct lk_uarg a[LK_UARGS_MAX];
	char err[200];

	CHECK_EQ_INT(parse("8@phases(%rbx) 8@phases+8(%rip) 4@8(%rax,%rcx,4)", a, err), 3);
	CHECK(a[0].kind == LK_UA_MEM && a[0].reg == 3 && a[0].val == 0x40c000);
	CHECK(a[1].kind == LK_UA_MEM && a[1].reg == LK_UA_NOREG && a[1].val == 0x40c008);
	CHECK(a[2].reg == 0 && a[2].idx == 2 && a[2].scale == 4 && a[2].val == 8);
	/* sdt v1 notes: no size, 8 bytes */
	CHECK_EQ_INT(parse("%rdi", a, err), 1);
	CHECK(a[0].size == 8 && a[0].reg == 5);
	CHECK_EQ_INT(parse("", a, err), 0);
}

TEST(args_refused_with_the_operand)
{
	struct lk_uarg a[LK_UARGS_MAX];
	char err[200];

	CHECK(parse("3@%rdi", a, err) < 0 && strstr(err, "3@%rdi"));
	CHECK(parse("8@%xmm0", a, err) < 0 && strstr(err, "%xmm0"));
	CHECK(parse("8@nosuch(%rip)", a, err) < 0 && strstr(err, "nosuch"));
	CHECK(parse("8@8(%rax", a, err) < 0);
	CHECK(parse("1@%rdi 1@%rdi 1@%rdi 1@%rdi 1@%rdi 1@%rdi 1@%rdi 1@%rdi 1@%rdi 1@%rdi 1@%rdi",
		    a, err) < 0 && strstr(err, "more than"));
}

TEST(note_descriptor)
{
	uint8_t d[64];
	struct usdt_note n;
	uint64_t pc = 0x401000, base = 0x40c000, sem = 0;
	char name[32];

	memcpy(d, &pc, 8);
	memcpy(d + 8, &base, 8);
	memcpy(d + 16, &sem, 8);
	memcpy(d + 24, "prov\0a__b\0-4@%edi", 18);
	CHECK(usdt_parse_note(d, 42, &n) == 0);
	CHECK(n.pc == pc && strcmp(n.prov, "prov") == 0 && strcmp(n.name, "a__b") == 0 &&
	      strcmp(n.args, "-4@%edi") == 0);
	usdt_probe_name(n.name, name, sizeof name);
	CHECK(strcmp(name, "a-b") == 0);
	usdt_note_free(&n);
	CHECK(usdt_parse_note(d, 30, &n) < 0);		/* strings cut short */
	CHECK(usdt_parse_note(d, 20, &n) < 0);
}

static struct umod *machload(void)
{
	static struct umod m;
	static int done;
	char path[PATH_MAX], err[256];

	if (!done) {
		done = 1;
		mt_build_dir(path, sizeof path);
		strncat(path, "/guest/machload", sizeof path - strlen(path) - 1);
		if (umod_load(&m, path, umod_pid(1), err, sizeof err) < 0) {
			printf("# %s\n", err);
			return NULL;
		}
	}
	return m.file ? &m : NULL;
}

/* machload's notes: the probes the e2e tests count, each on sdt.h's nop,
   each argument string parsed. */
TEST(machload_notes)
{
	struct umod *m = machload();
	int seen = 0;

	CHECK(m != NULL);
	CHECK(strcmp(m->name, "machload") == 0 && m->pid == 1);
	for (size_t i = 0; i < m->nnotes; i++) {
		const struct usdt_note *n = &m->notes[i];
		const uint8_t *b = umod_text(m, n->pc, 1);
		struct lk_uarg a[LK_UARGS_MAX];
		char err[200];
		int na;

		CHECK(strcmp(n->prov, "machload") == 0);
		CHECK(b && *b == 0x90);
		na = usdt_parse_args(n->args, a, LK_UARGS_MAX, NULL, NULL, err, sizeof err);
		if (na < 0)	/* a symbol operand: needs the symbol table */
			continue;
		if (strcmp(n->name, "round__trip") == 0) {
			CHECK_EQ_INT(na, 1);
			CHECK(umod_func_at(m, n->pc) == umod_func(m, "rt_once"));
			seen |= 1;
		}
		if (strcmp(n->name, "phase__start") == 0) {
			CHECK_EQ_INT(na, 2);
			CHECK(a[0].size == 8);
			seen |= 2;
		}
	}
	CHECK_EQ_INT(seen, 3);
}

static int classify(const char *hex, struct lk_usite *s, char *why)
{
	uint8_t b[16];
	size_t n = strlen(hex) / 2;

	for (size_t i = 0; i < n; i++)
		sscanf(hex + 2 * i, "%2hhx", &b[i]);
	memset(s, 0, sizeof *s);
	return uemul_classify(b, n, 0x401000, s, why, 200);
}

TEST(emulation_classes)
{
	struct lk_usite s;
	char why[200];

	CHECK(classify("90", &s, why) == 0 && s.emul == LK_UE_NOP && s.len == 1 && s.orig == 0x90);
	CHECK(classify("0f1f4000", &s, why) == 0 && s.emul == LK_UE_NOP && s.len == 4);
	CHECK(classify("f30f1efa", &s, why) == 0 && s.emul == LK_UE_NOP && s.len == 4);
	CHECK(classify("55", &s, why) == 0 && s.emul == LK_UE_PUSH && s.reg == 6);
	CHECK(classify("4157", &s, why) == 0 && s.emul == LK_UE_PUSH && s.reg == 15 && s.len == 2);
	CHECK(classify("5b", &s, why) == 0 && s.emul == LK_UE_POP && s.reg == 3);
	CHECK(classify("4889e5", &s, why) == 0 && s.emul == LK_UE_MOV && s.reg == 6 && s.reg2 == 7);
	CHECK(classify("89fd", &s, why) == 0 && s.emul == LK_UE_MOV32 && s.reg == 6 && s.reg2 == 5);
	CHECK(classify("4881ec08010000", &s, why) == 0 && s.emul == LK_UE_SUB_RSP &&
	      s.imm == 0x108 && s.len == 7);
	CHECK(classify("4883c408", &s, why) == 0 && s.emul == LK_UE_ADD_RSP && s.imm == 8);
	CHECK(classify("c3", &s, why) == 0 && s.emul == LK_UE_RET && s.imm == 0);
	CHECK(classify("c21000", &s, why) == 0 && s.emul == LK_UE_RET && s.imm == 16);
}

TEST(emulation_refusals_name_the_instruction)
{
	struct lk_usite s;
	char why[200];

	CHECK(classify("e8fbffffff", &s, why) < 0 && strstr(why, "call"));
	CHECK(classify("31c0", &s, why) < 0 && strstr(why, "xor eax, eax"));
	CHECK(classify("488b4708", &s, why) < 0 && strstr(why, "mov"));	/* a load */
	CHECK(classify("5c", &s, why) < 0 && strstr(why, "pop"));		/* pop %rsp */
	CHECK(classify("4883c708", &s, why) < 0 && strstr(why, "add"));	/* not rsp */
	CHECK(classify("488d05", &s, why) < 0);				/* cut short */
}

/* pid probes' instruction boundaries: rt_once's offsets decode. */
TEST(machload_function_offsets)
{
	struct umod *m = machload();
	const struct ufunc *f;
	uint32_t offs[256];
	int n;

	CHECK(m != NULL);
	f = umod_func(m, "rt_once");
	CHECK(f != NULL);
	n = umod_insn_offsets(m, f, offs, 256);
	CHECK(n > 5 && offs[0] == 0 && offs[1] > 0 && offs[n - 1] < f->size);
}

MT_TEST_MAIN()
