/*
 * Consumer formatting checked against dtrace's documented output:
 * distributions, aggregation values, printf conversions, byte dumps.
 */
#include <stdlib.h>
#include <string.h>
#include "../mt_test.h"
#include "machtrace/consumer.h"

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

#define HDR "\n           value  ------------- Distribution ------------- count    \n"
#define AT40 "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@"
#define SP40 "                                        "

TEST(quantize_single)
{
	int64_t b[MT_QUANTIZE_NBUCKETS] = { 0 };
	FILE *f = mem();

	b[MT_QUANTIZE_ZERO + 3] = 1;	/* 7 is in [4, 8) */
	mt_print_quantize(f, b, 1);
	CHECK_EQ_STR(done(f), HDR
		"               2 |" SP40 " 0        \n"
		"               4 |" AT40 " 1        \n"
		"               8 |" SP40 " 0        \n");
}

TEST(quantize_zero_and_split)
{
	int64_t b[MT_QUANTIZE_NBUCKETS] = { 0 };
	FILE *f = mem();

	b[MT_QUANTIZE_ZERO] = 1;
	b[MT_QUANTIZE_ZERO + 1] = 3;	/* value 1 */
	mt_print_quantize(f, b, 1);
	CHECK_EQ_STR(done(f), HDR
		"              -1 |" SP40 " 0        \n"
		"               0 |@@@@@@@@@@" "                              "
		" 1        \n"
		"               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@" "          "
		" 3        \n"
		"               2 |" SP40 " 0        \n");
}

TEST(quantize_negative)
{
	int64_t b[MT_QUANTIZE_NBUCKETS] = { 0 };
	FILE *f = mem();

	b[MT_QUANTIZE_ZERO - 2] = 2;	/* -2 and -3 */
	mt_print_quantize(f, b, 1);
	CHECK_EQ_STR(done(f), HDR
		"              -4 |" SP40 " 0        \n"
		"              -2 |" AT40 " 2        \n"
		"              -1 |" SP40 " 0        \n");
}

TEST(lquantize_range)
{
	struct mt_agg a = { MT_AGG_LQUANTIZE, 16, 12, 1, { 0, 10, 1, 0 } };
	int64_t b[12] = { 0 };
	FILE *f = mem();

	b[11] = 1;	/* >= 10 */
	mt_print_lquantize(f, b, &a, 1);
	CHECK_EQ_STR(done(f), HDR
		"               9 |" SP40 " 0        \n"
		"           >= 10 |" AT40 " 1        \n");
}

TEST(lquantize_below)
{
	struct mt_agg a = { MT_AGG_LQUANTIZE, 16, 5, 1, { 0, 30, 10, 0 } };
	int64_t b[5] = { 1, 0, 0, 0, 0 };
	FILE *f = mem();

	mt_print_lquantize(f, b, &a, 1);
	CHECK_EQ_STR(done(f), HDR
		"             < 0 |" AT40 " 1        \n"
		"               0 |" SP40 " 0        \n");
}

TEST(aggval_scalars)
{
	struct mt_agg cnt = { MT_AGG_COUNT, 8, 1, 0, { 0 } };
	struct mt_agg avg = { MT_AGG_AVG, 8, 2, 0, { 0 } };
	int64_t v[2] = { 10, 0 }, av[2] = { 4, 10 };
	FILE *f = mem();

	mt_print_aggval(f, &cnt, v, 1);
	mt_print_aggval(f, &avg, av, 1);
	mt_print_aggval(f, &cnt, v, 3);
	CHECK_EQ_STR(done(f), "               10                2"
		     "                3");
}

TEST(stddev)
{
	/* values 2, 4, 4, 4, 5, 5, 7, 9: mean 5, stddev 2 */
	int64_t v[4] = { 8, 40, 232, 0 };

	CHECK_EQ_INT(mt_stddev(v, 1), 2);
}

static const char *
pf(const char *fmt, const struct mt_pfarg *a, int n)
{
	FILE *f = mem();
	char err[64];

	mt_printf(f, NULL, fmt, a, n, err, sizeof(err));
	return done(f);
}

#define INT4(p) { MT_TI_INT, 4, (p), NULL, NULL, 0 }
#define INT8(p) { MT_TI_INT, 8, (p), NULL, NULL, 0 }
#define STR(p, n) { MT_TI_STR, (n), (p), NULL, NULL, 0 }

TEST(printf_ints)
{
	int32_t m1 = -1, x = 0x123;
	int64_t big = -1;
	struct mt_pfarg a[] = { INT4(&m1), INT4(&m1), INT4(&m1), INT8(&big) };
	struct mt_pfarg b[] = { INT4(&x), INT4(&x), INT4(&x) };

	CHECK_EQ_STR(pf("%d %u %x %x", a, 4), "-1 4294967295 ffffffff "
		     "ffffffffffffffff");
	{
		int8_t sc = -1;
		struct mt_pfarg c1[] = { { MT_TI_INT, 1, &sc, NULL, NULL, 0 } };

		/* a signed char widens to int: %x prints 32 bits */
		CHECK_EQ_STR(pf("%x %d", c1, 1), "ffffffff ");
	}
	CHECK_EQ_STR(pf("%#8x|%08x|%-8x|", b, 3),
		     "   0x123|00000123|123     |");
}

TEST(printf_widths_precision)
{
	int32_t w = 3, neg = -4, one = 1, zero = 0;
	char s[8] = "hello";
	struct mt_pfarg a[] = { INT4(&w), INT4(&one), INT4(&neg),
				INT4(&one) };
	struct mt_pfarg b[] = { STR(s, 8), INT4(&zero), STR(s, 8) };

	CHECK_EQ_STR(pf("[%*d][%*d]", a, 4), "[  1][1   ]");
	CHECK_EQ_STR(pf("[%.0s][%.*s]", b, 3), "[hello][hello]");
	CHECK_EQ_STR(pf("[%.2s]", b, 1), "[he]");
}

TEST(printf_chars_and_escapes)
{
	int32_t c = 'A', nl = '\n';
	char s[8] = "a\tb";
	struct mt_pfarg a[] = { INT4(&c), INT4(&nl), STR(s, 8) };

	CHECK_EQ_STR(pf("%c %C %S %%", a, 3), "A \\n a\\tb %");
}

TEST(printf_small_sizes)
{
	uint8_t uc = 255;
	struct mt_pfarg a[] = { { MT_TI_UINT, 1, &uc, NULL, NULL, 0 },
				{ MT_TI_UINT, 1, &uc, NULL, NULL, 0 } };

	/* dtrace-utils: the D type decides the sign; %d of an unsigned
	   type prints it unsigned */
	CHECK_EQ_STR(pf("%d %u", a, 2), "255 255");
}

TEST(printf_aggval)
{
	struct mt_agg cnt = { MT_AGG_SUM, 8, 1, 0, { 0 } };
	int64_t v = 42;
	int32_t k = 7;
	struct mt_pfarg a[] = { INT4(&k), { 0, 0, NULL, &cnt, &v, 1 } };

	CHECK_EQ_STR(pf("%@u: %d\n", a, 2), "42: 7\n");
	CHECK_EQ_STR(pf("%d %@8d|", a, 2), "7       42|");
	/* more %@ than aggregations: the last one is formatted again */
	CHECK_EQ_STR(pf("%@u %@u %@u", a, 2), "42 42 42");
}

TEST(printf_length_modifiers)
{
	int32_t x = 0x1ff, y = 0x1ffff;
	struct mt_pfarg a[] = { INT4(&x), INT4(&x), INT4(&y), INT4(&y) };

	/* C's printf narrows for h and hh; dtrace passes them through */
	CHECK_EQ_STR(pf("%hhx %hhd %hx %hu", a, 4), "ff -1 ffff 65535");
}

TEST(rawbytes)
{
	FILE *f = mem();

	mt_print_rawbytes(f, "hello", 5);
	CHECK_EQ_STR(done(f), "\n"
		"             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f"
		"  0123456789abcdef\n"
		"         0: 68 65 6c 6c 6f                                 "
		"  hello\n");
}

static int
fake_sym(void *arg, uint64_t addr, const char **mod, const char **func,
	 uint64_t *off)
{
	if (addr < 0x1000 || addr >= 0x2000)
		return -1;
	*mod = "gnumach";
	*func = "vm_map_enter";
	*off = addr - 0x1000;
	return 0;
}

TEST(symbols)
{
	char b[128];
	struct mt_symsrc src = { NULL, fake_sym, NULL };

	mt_sym_format(&src, 0x1010, MT_SYM_PC, b, sizeof(b));
	CHECK_EQ_STR(b, "gnumach`vm_map_enter+0x10");
	mt_sym_format(&src, 0x1000, MT_SYM_PC, b, sizeof(b));
	CHECK_EQ_STR(b, "gnumach`vm_map_enter");
	mt_sym_format(&src, 0x1010, MT_SYM_FUNC, b, sizeof(b));
	CHECK_EQ_STR(b, "gnumach`vm_map_enter");
	mt_sym_format(&src, 0x1010, MT_SYM_MOD, b, sizeof(b));
	CHECK_EQ_STR(b, "gnumach");
	mt_sym_format(&src, 0x3000, MT_SYM_PC, b, sizeof(b));
	CHECK_EQ_STR(b, "0x3000");
	mt_sym_format(NULL, 0x1010, MT_SYM_PC, b, sizeof(b));
	CHECK_EQ_STR(b, "0x1010");
}

MT_TEST_MAIN()
