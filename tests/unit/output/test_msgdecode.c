/*
 * output/msg: message bodies built as MIG builds them on x86_64 (8-byte
 * descriptors, items aligned to 8), decoded; tracemem()'s dump read back.
 */
#include <stdio.h>
#include <string.h>
#include "machtrace/msgdecode.h"
#include "../mt_test.h"

struct body {
	uint8_t b[512];
	size_t n;
};

/* A descriptor: msgt_name, msgt_size (bits), msgt_number, msgt_inline. */
static void
desc(struct body *m, unsigned name, unsigned bits, uint32_t number, int inl)
{
	uint32_t w = name | bits << 8 | (uint32_t)!!inl << 29;

	memcpy(m->b + m->n, &w, 4);
	memcpy(m->b + m->n + 4, &number, 4);
	m->n += 8;
}

static void
data(struct body *m, const void *p, size_t n)
{
	memcpy(m->b + m->n, p, n);
	m->n = (m->n + n + 7) & ~(size_t)7;
}

/* machload_echo's request and reply: an int; a RetCode then an int. */
TEST(integers_and_retcode)
{
	struct body q = { .n = 0 }, r = { .n = 0 };
	int32_t v = -7, rc = 0, out = 43;
	char s[256];

	desc(&q, 2, 32, 1, 1), data(&q, &v, 4);
	CHECK_EQ_INT(mt_msg_decode(q.b, q.n, 0, s, sizeof(s)), 1);
	CHECK_EQ_STR(s, "-7");
	desc(&r, 2, 32, 1, 1), data(&r, &rc, 4);
	desc(&r, 2, 32, 1, 1), data(&r, &out, 4);
	CHECK_EQ_INT(mt_msg_decode(r.b, r.n, 1, s, sizeof(s)), 1);
	CHECK_EQ_STR(s, "43");
	CHECK_EQ_INT(mt_msg_decode(r.b, 16, 1, s, sizeof(s)), 0);
	CHECK_EQ_STR(s, "");
}

/* An array, a C string of 8*128 bits, a port, out-of-line data. */
TEST(arrays_strings_ports_ool)
{
	struct body m = { .n = 0 };
	int32_t a[3] = { 1, 2, 3 };
	char name[128] = "hd0s1\n";
	uint64_t port = 0xffffffff84397220ULL, addr = 0x1000;
	char s[256];

	desc(&m, 2, 32, 3, 1), data(&m, a, sizeof(a));
	desc(&m, 12, 8 * 128, 1, 1), data(&m, name, sizeof(name));
	desc(&m, 17, 64, 1, 1), data(&m, &port, 8);
	desc(&m, 9, 8, 4096, 0), data(&m, &addr, 8);
	CHECK_EQ_INT(mt_msg_decode(m.b, m.n, 0, s, sizeof(s)), 4);
	CHECK_EQ_STR(s, "[1 2 3] \"hd0s1\\n\" send:0xffffffff84397220 ool(4096)");
	/* cut short by the bound: the string's data is missing */
	CHECK_EQ_INT(mt_msg_decode(m.b, 40, 0, s, sizeof(s)), 2);
	CHECK_EQ_STR(s, "[1 2 3] ...");
}

/* Bytes that are no descriptors: their size. */
TEST(untyped)
{
	uint8_t b[16] = { 0xff, 0, 0, 0, 1 };
	char s[64];

	CHECK_EQ_INT(mt_msg_decode(b, sizeof(b), 0, s, sizeof(s)), -1);
	CHECK_EQ_STR(s, "16 bytes");
}

/* consumer/print.c's dump format, read back. */
TEST(hexline)
{
	uint8_t b[64] = { 0 };
	size_t end = 0;

	CHECK_EQ_INT(mt_msg_hexline("\n", b, sizeof(b), &end), 0);
	CHECK_EQ_INT(mt_msg_hexline("             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n",
				    b, sizeof(b), &end), 0);
	CHECK_EQ_INT(mt_msg_hexline("         0: 68 65 6c 6c 6f 2c 20 77 6f 72 6c 64 2c 20 74 68  hello, world, th\n",
				    b, sizeof(b), &end), 1);
	CHECK_EQ_INT(mt_msg_hexline("        10: 69 73 20 69                                      is i\n",
				    b, sizeof(b), &end), 1);
	CHECK_EQ_INT((int)end, 20);
	CHECK(memcmp(b, "hello, world, this i", 20) == 0);
	CHECK_EQ_INT(mt_msg_hexline("    1234 machload: x\n", b, sizeof(b), &end), -1);
}

MT_TEST_MAIN()
