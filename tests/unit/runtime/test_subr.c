/* Subroutines: string functions and friends, with their edge cases. */
#include "../mt_test.h"
#include "tests/lib/rtimg.h"

static struct rtrun R;
static char out[64];

struct arg { int isstr; const char *s; int64_t v; };
#define S(x)	{ 1, x, 0 }
#define I(x)	{ 0, 0, x }

/* Call subr(args) in BEGIN; string results land in out, ints returned. */
static int64_t call(uint32_t subr, int strres, int n, const struct arg *a)
{
	struct ib b;
	mt_instr_t in[40];
	int k = 0;
	int64_t ret = 0;

	ib_init(&b);
	b.opt.strsize = 32;
	for (int i = 0; i < n; i++)
		in[k++] = a[i].isstr ? RV(SETS, ib_str(&b, a[i].s), i + 1) :
			RV(SETX, ib_int(&b, (uint64_t)a[i].v), i + 1);
	in[k++] = R(FLUSHTS, 0, 0, 0);
	for (int i = 0; i < n; i++)
		in[k++] = a[i].isstr ? R(PUSHTR, MT_TT_STR, 0, i + 1) :
			R(PUSHTV, MT_TT_INT, 0, i + 1);
	in[k++] = RV(CALL, subr, 9);
	in[k++] = R(RET, 0, 0, 9);
	uint32_t d = ib_difo(&b, in, (uint32_t)k,
			     strres ? MT_RT_STRING : MT_RT_INT);
	ib_clause(&b, 0, 0, 32);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, strres ? MT_REC_STR : MT_REC_INT, 0, strres ? 32 : 8, 0);
	if (rt_start(&R, &b) != 0) {
		printf("%s\n", R.err);
		return -999;
	}
	rt_fire(&R, 0, 0);
	struct mt_rechdr *h = rt_rec(&R, 0);
	out[0] = '\0';
	if (!h || h->epid == MT_EPID_ERROR) {
		snprintf(out, sizeof(out), "<fault %d>",
			 h ? (int)((struct mt_errrec *)rt_data(h))->fault : -1);
		ret = -555;
	} else if (strres) {
		memcpy(out, rt_data(h), 32);
	} else {
		ret = *(int64_t *)rt_data(h);
	}
	rt_stop(&R);
	return ret;
}

#define STR1(subr, a0) \
	(call(subr, 1, 1, (struct arg[]){ a0 }), out)
#define STR2(subr, a0, a1) \
	(call(subr, 1, 2, (struct arg[]){ a0, a1 }), out)
#define STR3(subr, a0, a1, a2) \
	(call(subr, 1, 3, (struct arg[]){ a0, a1, a2 }), out)
#define INT1(subr, a0) call(subr, 0, 1, (struct arg[]){ a0 })
#define INT2(subr, a0, a1) call(subr, 0, 2, (struct arg[]){ a0, a1 })
#define INT3(subr, a0, a1, a2) call(subr, 0, 3, (struct arg[]){ a0, a1, a2 })

TEST(strlen_strjoin)
{
	CHECK_EQ_INT(INT1(MT_SUBR_STRLEN, S("hello")), 5);
	CHECK_EQ_INT(INT1(MT_SUBR_STRLEN, S("")), 0);
	CHECK_EQ_STR(STR2(MT_SUBR_STRJOIN, S("foo"), S("bar")), "foobar");
	/* truncated to strsize - 1 = 31 characters */
	CHECK_EQ_STR(STR2(MT_SUBR_STRJOIN, S("0123456789abcdefghij"),
			  S("0123456789abcdefghij")),
		     "0123456789abcdefghij0123456789a");
}

TEST(substr)
{
	CHECK_EQ_STR(STR2(MT_SUBR_SUBSTR, S("hello world"), I(6)), "world");
	CHECK_EQ_STR(STR3(MT_SUBR_SUBSTR, S("hello world"), I(0), I(5)), "hello");
	CHECK_EQ_STR(STR2(MT_SUBR_SUBSTR, S("hello world"), I(-5)), "world");
	CHECK_EQ_STR(STR3(MT_SUBR_SUBSTR, S("hello"), I(1), I(-1)), "ell");
	CHECK_EQ_STR(STR3(MT_SUBR_SUBSTR, S("hello"), I(-10), I(7)), "he");
	CHECK_EQ_STR(STR2(MT_SUBR_SUBSTR, S("hello"), I(10)), "");
	CHECK_EQ_STR(STR2(MT_SUBR_SUBSTR, S("hello"), I(-10)), "hello");
}

TEST(index_rindex_strstr)
{
	CHECK_EQ_INT(INT2(MT_SUBR_INDEX, S("foobarbar"), S("bar")), 3);
	CHECK_EQ_INT(INT3(MT_SUBR_INDEX, S("foobarbar"), S("bar"), I(4)), 6);
	CHECK_EQ_INT(INT2(MT_SUBR_INDEX, S("foo"), S("x")), -1);
	CHECK_EQ_INT(INT3(MT_SUBR_INDEX, S("foo"), S(""), I(10)), 3);
	CHECK_EQ_INT(INT2(MT_SUBR_INDEX, S(""), S("")), 0);
	CHECK_EQ_INT(INT2(MT_SUBR_INDEX, S(""), S("x")), -1);
	CHECK_EQ_INT(INT2(MT_SUBR_RINDEX, S("foobarbar"), S("bar")), 6);
	CHECK_EQ_INT(INT3(MT_SUBR_RINDEX, S("foobarbar"), S("bar"), I(5)), 3);
	CHECK_EQ_INT(INT3(MT_SUBR_RINDEX, S("foobarbar"), S(""), I(-1)), 0);
	CHECK_EQ_STR(STR2(MT_SUBR_STRSTR, S("foobarbar"), S("bar")), "barbar");
	CHECK_EQ_INT(INT2(MT_SUBR_STRSTR, S("foo"), S("bar")), 0);
	CHECK_EQ_STR(STR2(MT_SUBR_STRCHR, S("foobar"), I('b')), "bar");
	CHECK_EQ_STR(STR2(MT_SUBR_STRRCHR, S("foobarbaz"), I('b')), "baz");
	CHECK_EQ_INT(INT2(MT_SUBR_STRCHR, S("foo"), I('z')), 0);
}

TEST(paths)
{
	CHECK_EQ_STR(STR1(MT_SUBR_BASENAME, S("/foo/bar/")), "bar");
	CHECK_EQ_STR(STR1(MT_SUBR_BASENAME, S("/")), "/");
	CHECK_EQ_STR(STR1(MT_SUBR_BASENAME, S("")), ".");
	CHECK_EQ_STR(STR1(MT_SUBR_BASENAME, S("foo")), "foo");
	CHECK_EQ_STR(STR1(MT_SUBR_DIRNAME, S("/foo/bar/")), "/foo");
	CHECK_EQ_STR(STR1(MT_SUBR_DIRNAME, S("/foo")), "/");
	CHECK_EQ_STR(STR1(MT_SUBR_DIRNAME, S("foo")), ".");
	CHECK_EQ_STR(STR1(MT_SUBR_DIRNAME, S("//")), "/");
	CHECK_EQ_STR(STR1(MT_SUBR_DIRNAME, S("")), ".");
	CHECK_EQ_STR(STR1(MT_SUBR_CLEANPATH, S("/foo//bar/./baz/../qux")),
		     "/foo/bar/qux");
	CHECK_EQ_STR(STR1(MT_SUBR_CLEANPATH, S("/a/..")), "/");
	CHECK_EQ_STR(STR1(MT_SUBR_CLEANPATH, S("/a/.b/..c")), "/a/.b/..c");
	CHECK_EQ_STR(STR1(MT_SUBR_CLEANPATH, S("./a")), "a");
	CHECK_EQ_STR(STR1(MT_SUBR_CLEANPATH, S("a/../..")), "..");
	CHECK_EQ_STR(STR1(MT_SUBR_CLEANPATH, S("../..")), "../..");
	CHECK_EQ_STR(STR1(MT_SUBR_CLEANPATH, S("a/..")), ".");
	CHECK_EQ_STR(STR1(MT_SUBR_CLEANPATH, S("/foo/bar/baz/")), "/foo/bar/baz");
	CHECK_EQ_STR(STR1(MT_SUBR_CLEANPATH, S("")), "");
}

TEST(numbers_and_case)
{
	CHECK_EQ_STR(STR1(MT_SUBR_LLTOSTR, I(0)), "0");
	CHECK_EQ_STR(STR1(MT_SUBR_LLTOSTR, I(-123456789)), "-123456789");
	CHECK_EQ_STR(STR1(MT_SUBR_LLTOSTR, I(INT64_MIN)), "-9223372036854775808");
	CHECK_EQ_STR(STR2(MT_SUBR_LLTOSTR, I(255), I(16)), "0xff");
	CHECK_EQ_STR(STR1(MT_SUBR_TOUPPER, S("MixEd 1")), "MIXED 1");
	CHECK_EQ_STR(STR1(MT_SUBR_TOLOWER, S("MixEd 1")), "mixed 1");
	CHECK_EQ_INT(INT1(MT_SUBR_STRTOLL, S("  -42x")), -42);
	CHECK_EQ_INT(INT2(MT_SUBR_STRTOLL, S("0x1f"), I(16)), 31);
	CHECK_EQ_INT(INT2(MT_SUBR_STRTOLL, S("777"), I(8)), 511);
	CHECK_EQ_INT(INT1(MT_SUBR_HTONS, I(0x1234)), 0x3412);
	CHECK_EQ_INT(INT1(MT_SUBR_HTONL, I(0x12345678)), 0x78563412);
	CHECK_EQ_INT(INT1(MT_SUBR_NTOHLL, I(0x0102030405060708LL)),
		     0x0807060504030201LL);
}

TEST(strtok_and_faults)
{
	CHECK_EQ_STR(STR2(MT_SUBR_STRTOK, S(",,a,b"), S(",")), "a");
	/* strtok(NULL, ...) with no saved string faults at address 0 */
	STR2(MT_SUBR_STRTOK, I(0), S(","));
	CHECK_EQ_STR(out, "<fault 1>");
	/* strlen of an unloadable address */
	CHECK_EQ_INT(INT1(MT_SUBR_STRLEN, I(0x1000)), -555);
	CHECK_EQ_STR(out, "<fault 1>");
	CHECK_EQ_INT(INT2(MT_SUBR_LLTOSTR, I(1), I(99)), -555);
	CHECK_EQ_STR(out, "<fault 3>");
}

TEST(inet)
{
	/* the strtab holds the address bytes: "\x7f\x00\x00\x01" can't be a
	   C literal with NULs in our builder, so use non-zero octets */
	CHECK_EQ_STR(STR1(MT_SUBR_INET_NTOA, S("\xc0\xa8\x01\x02")),
		     "192.168.1.2");
	CHECK_EQ_STR(STR2(MT_SUBR_INET_NTOP, I(2), S("\x0a\x01\x02\x03")),
		     "10.1.2.3");
	CHECK_EQ_INT(INT2(MT_SUBR_INET_NTOP, I(99), S("abcd")), -555);
}

TEST(alloca_bcopy)
{
	struct ib b;

	/* p = alloca(8); bcopy("abcdefg", p, 8); trace(stringof(p)) */
	ib_init(&b);
	uint32_t s = ib_str(&b, "abcdefg"), eight = ib_int(&b, 8);
	uint32_t d = IB_DIFO(&b, MT_RT_STRING, RV(SETX, eight, 1),
			     R(FLUSHTS, 0, 0, 0), R(PUSHTV, 0, 0, 1),
			     RV(CALL, MT_SUBR_ALLOCA, 2), RV(SETS, s, 3),
			     R(PUSHTR, MT_TT_STR, 0, 3), R(PUSHTV, 0, 0, 2),
			     R(PUSHTV, 0, 0, 1), RV(CALL, MT_SUBR_BCOPY, 0),
			     R(RET, 0, 0, 2));
	ib_clause(&b, 0, 0, 16);
	ib_action(&b, MT_ACT_TRACE, 0);
	ib_rec(&b, d, MT_REC_STR, 0, 16, 0);
	CHECK_EQ_INT(rt_start(&R, &b), 0);
	rt_fire(&R, 0, 0);
	CHECK_EQ_STR((char *)rt_data(rt_rec(&R, 0)), "abcdefg");
	rt_stop(&R);
	/* bcopy into non-scratch memory faults */
	CHECK_EQ_INT(INT3(MT_SUBR_BCOPY, S("abc"), S("xyz"), I(2)), -555);
	CHECK_EQ_STR(out, "<fault 1>");
}

MT_TEST_MAIN()
