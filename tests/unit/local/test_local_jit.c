/*
 * Compiled probes on the local target (targets/local/jit.c): each
 * program runs twice, compiled and with MACHTRACE_NOJIT=1 (the
 * interpreter), BEGIN and END fired alternately with the same
 * arguments.  Every firing of the first must run compiled code; the
 * principal buffer (timestamps aside) and the aggregation data must be
 * the same bytes.
 */
#include "../mt_test.h"
#include "../localrun.h"

#define FIRINGS 300

/* Compiled and interpreted runs of src leave the same state; all: every
   firing of the first is compiled (else, after exit(), the code's guard
   leaves the firings to the interpreter). */
static int same_as(const char *src, int all)
{
	struct mt_lrun c = { 0 }, i = { 0 };
	int ok = 0;

	if (mt_lrun(&c, src, 0, FIRINGS) == 0 && mt_lrun(&i, src, 1, FIRINGS) == 0) {
		int want = strstr(src, "END") ? 2 * FIRINGS : FIRINGS;
		ok = (all ? c.compiled == want : c.compiled > 0) && i.compiled == 0 &&
			mt_lrun_same(&c, &i);
		if (!ok)
			printf("# %s: compiled firings %d, records %llu\n", src, c.compiled,
			       (unsigned long long)mt_lrun_records(&c));
	}
	if (c.t)
		mt_target_free(c.t);
	if (i.t)
		mt_target_free(i.t);
	unsetenv("MACHTRACE_NOJIT");
	return ok;
}

static int same(const char *src)
{
	return same_as(src, 1);
}

TEST(local_jit_count)
{
	CHECK(same("BEGIN { @ = count(); }"));
}

TEST(local_jit_predicate)
{
	CHECK(same("BEGIN /(arg0 & 3) == 1/ { @ = count(); } END /arg1 > 100/ { @b = count(); }"));
}

TEST(local_jit_keys)
{
	CHECK(same("BEGIN { @[arg1 & 7] = count(); @e[execname] = count(); "
		   "@f[probefunc] = count(); @n[probename] = sum(arg1); }"));
}

TEST(local_jit_execname_predicate)
{
	CHECK(same("BEGIN /execname == \"test_local_jit\"/ { @ = count(); }"));
}

TEST(local_jit_records)
{
	CHECK(same("BEGIN { trace(arg0); } END { printf(\"%d %d\\n\", arg0, arg1); }"));
}

TEST(local_jit_aggregations)
{
	CHECK(same("BEGIN { @s = sum(arg0); @mi = min(arg0); @ma = max(arg0); "
		   "@q = quantize(arg0); } END { @m = min(arg1 - 100); @x = quantize(-arg2); }"));
}

TEST(local_jit_globals)
{
	CHECK(same("int x; BEGIN { x = x + arg1; } END { @ = sum(x); @c[x & 3] = count(); }"));
}

TEST(local_jit_thread_locals)
{
	CHECK(same("BEGIN { self->a = arg1; } END /self->a & 1/ { @ = sum(self->a); "
		   "self->a = 0; }"));
}

/* String records: execname (the runtime's buffer, copied as words),
   probe names and constants (the runtime's MT_JH_STR). */
TEST(local_jit_string_records)
{
	CHECK(same("BEGIN { trace(execname); printf(\"%s %d %s\\n\", probefunc, arg0, "
		   "execname); } END { trace(\"lit\"); trace(probename); }"));
}

/* Global associative arrays keyed by one integer (MT_JH_GAA) and
   clause-locals, zeroed at each firing. */
TEST(local_jit_assoc_and_locals)
{
	CHECK(same("int a[int]; BEGIN { this->x = a[arg1 & 3]; a[arg1 & 7] = arg0; "
		   "@[this->x & 7] = count(); } BEGIN /this->x == 0/ { @z = count(); } "
		   "END /a[arg1 & 7]/ { @e = sum(a[arg1 & 7]); a[arg1 & 7] = 0; }"));
	/* MT_JH_GAA builds its key itself: an interpreted probe (END, its
	   strjoin() not compiled) finds what compiled code stored, and
	   compiled code what the interpreter stored and deleted */
	CHECK(same_as("int a[int]; BEGIN { @b[a[arg1 & 7]] = count(); a[arg1 & 7] = arg0; } "
		      "END { @e[a[arg1 & 7], strjoin(\"x\", \"y\")] = count(); "
		      "a[arg1 & 7] = arg0 & 1 ? 0 : arg1; }", 0));
}

/* Aggregations of several keys, or keyed by arguments: their values
   computed by the code, the entry by the runtime (MT_JH_AGGVALS). */
TEST(local_jit_multikey_aggregations)
{
	CHECK(same("BEGIN { @[arg1 & 3, execname] = sum(arg0); @c[probefunc, arg1 & 1, \"x\"] = "
		   "count(); @a[arg1 & 3, arg2 & 1] = avg(arg0); @l[arg1 & 1, 0] = "
		   "llquantize(arg0, 10, 0, 6, 20); } END { @s[execname, arg1 & 1] = stddev(arg0); }"));
}

/* Aggregations keyed by integers alone: the ECB's last entry tried
   inline, else the runtime's MT_JH_INTKEYS; keys truncated to their
   type, entries changing from firing to firing and repeating. */
TEST(local_jit_intkeys_aggregations)
{
	CHECK(same("BEGIN { @c[arg1 & 3, 7] = count(); @s[(char)arg0, (unsigned short)arg1, "
		   "arg2 & 1] = sum(arg0); @mi[arg1 & 1, (int)arg0] = min(arg0 - 50); "
		   "@mx[2, 3, 4] = max(arg1); } END { @q[arg1 & 3, (short)-arg2] = quantize(arg0); "
		   "@c[arg1 & 3, 7] = count(); }"));
	/* with constant strings among the keys, compared word by word */
	CHECK(same("BEGIN { @k[arg1 & 3, \"msgs\"] = sum(1); @m[\"abcdefgh\", arg1 & 1, "
		   "\"x\"] = count(); } END { @k[arg1 & 3, \"rcv\"] = sum(2); @m[\"abcdefgh\", "
		   "arg1 & 1, \"a constant longer than a word\"] = count(); }"));
	/* with execname among them, its MT_JIT_PLATNAME bytes compared */
	CHECK(same("BEGIN { @e[arg1 & 3, execname] = count(); @f[execname, arg1 & 1, \"x\"] = "
		   "sum(arg0); } END { @e[arg1 & 3, execname] = count(); @f[execname, 2, "
		   "\"y\"] = sum(1); }"));
	/* the functions the runtime applies to the entry (MT_JH_AGGUPD) */
	CHECK(same("BEGIN { @l[arg1 & 3] = llquantize(arg0, 10, 0, 6, 20); @a[arg1 & 1, 5] = "
		   "avg(arg0); @d[arg2 & 3] = stddev(arg1); } END { @n[arg1 & 1] = "
		   "lquantize(arg0, 0, 1000, 100); @w[(char)arg1] = quantize(arg0, arg1 & 7); }"));
}

/* llquantize() updated in place (jit/llq.c): values in the underflow
   bin, in each magnitude (magnitude 0 included), past the last,
   negative, keyed and keyless */
TEST(local_jit_llquantize)
{
	CHECK(same("BEGIN { @a[arg1 & 3] = llquantize(arg0 >> (arg1 & 31), 10, 0, 6, 20); "
		   "@b[arg1 & 1] = llquantize((int64_t)arg0 - 3000000000, 2, 3, 20, 4); "
		   "@c[arg1 & 1] = llquantize((arg0 << 31) >> (arg1 & 15), 10, 16, 18, 10); } "
		   "END { @k[1] = llquantize(arg2 * 1000 >> (arg1 & 7), 10, 3, 9, 20); "
		   "@z = llquantize(arg2 * 1000 >> (arg1 & 7), 10, 3, 9, 20); }"));
}

/* A keyless aggregation the runtime updates from the values compiled
   code staged (MT_JH_AGGVALS): those values, not its DIFOs run again
   in the helper, which has no arguments */
TEST(local_jit_keyless_given)
{
	CHECK(same("BEGIN { @l = lquantize(arg2 * 1000 >> (arg1 & 7), 0, 1000000, 1000); "
		   "@s = stddev(arg0 >> (arg1 & 7)); }"));
}

/* Timestamps differ between runs: only what does not depend on them. */
TEST(local_jit_timestamps)
{
	CHECK(same("BEGIN { self->ts = timestamp; } END /self->ts/ { "
		   "@ = quantize(timestamp - self->ts >= 0); @n = count(); self->ts = 0; }"));
}

/* exit() as a clause's last action: the status, and later clauses of
   the probe (not END's) skipped, as the interpreter drains. */
TEST(local_jit_exit)
{
	CHECK(same_as("BEGIN { @ = count(); } BEGIN /arg1 == 7/ { trace(arg0); exit(arg1 - 9); } "
		      "BEGIN { @b = count(); } END { @e = count(); }", 0));
}

MT_TEST_MAIN()
