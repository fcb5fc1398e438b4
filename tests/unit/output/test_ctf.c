/*
 * The CTF writer and reader: what the writer writes reads back (classes,
 * values of every field type, timestamps merged across streams, drops),
 * the metadata is CTF 1.8 with LTTng's kernel env, and time never goes
 * backwards in a stream.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "machtrace/trace.h"
#include "../mt_test.h"

static char *
tmpdir(void)
{
	static char path[64];

	snprintf(path, sizeof(path), "/tmp/mt-ctf-XXXXXX");
	if (mkdtemp(path) == NULL)
		return NULL;
	return path;
}

static void
rmtrace(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

static const struct mt_trace_field sw_fields[] = {
	{ "prev_comm", MT_TF_STR, 0 }, { "prev_tid", MT_TF_INT, 4 },
	{ "prev_state", MT_TF_INT, 8 }, { "next_comm", MT_TF_STR, 0 },
	{ "next_tid", MT_TF_INT, 4 }, { "addr", MT_TF_HEX, 8 },
	{ "raw", MT_TF_BYTES, 3 }, { "small", MT_TF_INT, 1 },
	{ "u16", MT_TF_UINT, 2 },
};

static int
write_sample(const char *dir, uint32_t ncpus)
{
	struct mt_trace_env env = { .hostname = "testhost", .trace_name = "sample",
				     .clock_offset_ns = 1700000000123456789LL };
	struct mt_trace_writer *w;
	struct mt_trace_value v[9];
	static const uint8_t raw[3] = { 1, 2, 0xff };
	char err[256];
	int sw, empty;

	if ((w = mt_trace_create(dir, ncpus, &env, err, sizeof(err))) == NULL)
		return -1;
	sw = mt_trace_add_class(w, "sched_switch", sw_fields, 9);
	empty = mt_trace_add_class(w, "BEGIN", NULL, 0);
	memset(v, 0, sizeof(v));
	v[0].s = "machload";
	v[1].i = -7;
	v[2].i = 1;
	v[3].s = "";
	v[4].i = 42;
	v[5].i = (int64_t)0xffffffff81000000ULL;
	v[6].bytes = raw;
	v[7].i = -2;
	v[8].i = 65535;
	mt_trace_event(w, 0, 100, (uint32_t)empty, NULL);
	mt_trace_event(w, 0, 300, (uint32_t)sw, v);
	if (ncpus > 1) {
		v[4].i = 43;
		mt_trace_event(w, 1, 200, (uint32_t)sw, v);
		v[4].i = 42;
	}
	mt_trace_event(w, 0, 250, (uint32_t)sw, v);	/* goes back: raised to 300 */
	mt_trace_discarded(w, 0, 5);
	if (mt_trace_nevents(w) != (ncpus > 1 ? 4u : 3u) || mt_trace_ndiscarded(w) != 5)
		return -1;
	return mt_trace_close(w, err, sizeof(err));
}

TEST(round_trip)
{
	char *dir = tmpdir(), err[256];
	struct mt_trace *t;
	struct mt_trace_event ev;
	int64_t x;
	uint64_t ts[4];
	int n = 0;

	CHECK(dir != NULL);
	CHECK_EQ_INT(write_sample(dir, 2), 0);
	t = mt_trace_open(dir, err, sizeof(err));
	CHECK(t != NULL);
	CHECK_EQ_INT(mt_trace_nclasses(t), 2);
	CHECK_EQ_INT(mt_trace_ncpus(t), 2);
	CHECK_EQ_STR(mt_trace_env_get(t, "domain"), "kernel");
	CHECK_EQ_STR(mt_trace_env_get(t, "hostname"), "testhost");
	CHECK_EQ_INT(mt_trace_clock_offset(t), 1700000000123456789LL);
	CHECK_EQ_INT(mt_trace_discarded_total(t), 5);
	CHECK(mt_trace_class_named(t, "sched_switch") != NULL);
	while (mt_trace_next(t, &ev, err, sizeof(err)) == 1 && n < 4) {
		ts[n++] = ev.ts;
		if (n == 1) {
			CHECK_EQ_STR(ev.cls->name, "BEGIN");
			continue;
		}
		CHECK_EQ_STR(mt_trace_get_str(&ev, "prev_comm"), "machload");
		CHECK_EQ_STR(mt_trace_get_str(&ev, "next_comm"), "");
		CHECK(mt_trace_get_int(&ev, "prev_tid", &x) == 0 && x == -7);
		CHECK(mt_trace_get_int(&ev, "addr", &x) == 0 &&
		      (uint64_t)x == 0xffffffff81000000ULL);
		CHECK(mt_trace_get_int(&ev, "small", &x) == 0 && x == -2);
		CHECK(mt_trace_get_int(&ev, "u16", &x) == 0 && x == 65535);
		CHECK(ev.vals[6].bytes[2] == 0xff);
		CHECK(mt_trace_get_int(&ev, "next_tid", &x) == 0);
		CHECK_EQ_INT(x, n == 2 ? 43 : 42);
		CHECK_EQ_INT(ev.cpu, n == 2 ? 1 : 0);
	}
	CHECK_EQ_INT(n, 4);
	CHECK(ts[0] == 100 && ts[1] == 200 && ts[2] == 300 && ts[3] == 300);
	CHECK_EQ_INT(mt_trace_rewind(t, err, sizeof(err)), 0);
	CHECK_EQ_INT(mt_trace_next(t, &ev, err, sizeof(err)), 1);
	CHECK_EQ_INT(ev.ts, 100);
	mt_trace_free(t);
	rmtrace(dir);
}

TEST(metadata_text)
{
	char *dir = tmpdir(), path[128], buf[8192];
	FILE *f;
	size_t n;

	CHECK(dir != NULL);
	CHECK_EQ_INT(write_sample(dir, 1), 0);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	CHECK((f = fopen(path, "r")) != NULL);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	CHECK(strncmp(buf, "/* CTF 1.8 */", 13) == 0);
	CHECK(strstr(buf, "domain = \"kernel\";") != NULL);
	CHECK(strstr(buf, "freq = 1000000000;") != NULL);
	CHECK(strstr(buf, "uint64_t events_discarded;") != NULL);
	CHECK(strstr(buf, "uint32_t cpu_id;") != NULL);
	CHECK(strstr(buf, "string _prev_comm;") != NULL);
	CHECK(strstr(buf, "offset_s = 1700000000;") != NULL);
	rmtrace(dir);
}

/* what was traced, and the tracer's own cost, go into the env and read
   back; a newline in a D program becomes a space, a quote stays (escaped
   in the TSDL) */
TEST(env_what_was_traced)
{
	struct mt_trace_env env = { "h", "t", 0, "BEGIN {\n\tx = \"a\"; }", "sched",
				    "rt=3", NULL };
	char *dir = tmpdir(), err[256];
	struct mt_trace_writer *w;
	struct mt_trace *t;
	const char *k, *v;
	int seen = 0;

	CHECK(dir != NULL);
	CHECK((w = mt_trace_create(dir, 1, &env, err, sizeof(err))) != NULL);
	mt_trace_set_probe_cost(w, 12, 3456789);
	CHECK_EQ_INT(mt_trace_close(w, err, sizeof(err)), 0);
	CHECK((t = mt_trace_open(dir, err, sizeof(err))) != NULL);
	CHECK_EQ_STR(mt_trace_env_get(t, "machtrace_probe_firings"), "12");
	CHECK_EQ_STR(mt_trace_env_get(t, "machtrace_probe_ns"), "3456789");
	for (uint32_t i = 0; t && mt_trace_env_at(t, i, &k, &v) == 0; i++) {
		if (strcmp(k, "machtrace_program") == 0)
			seen += strcmp(v, "BEGIN {  x = \"a\"; }") == 0;
		if (strcmp(k, "machtrace_events") == 0)
			seen += strcmp(v, "sched") == 0;
		if (strcmp(k, "machtrace_workload") == 0)
			seen += strcmp(v, "rt=3") == 0;
		CHECK(strcmp(k, "machtrace_kernel") != 0);
	}
	CHECK_EQ_INT(seen, 3);
	mt_trace_free(t);
	rmtrace(dir);
}

TEST(refuses_nonempty_dir)
{
	char *dir = tmpdir(), err[256] = "";

	CHECK(dir != NULL);
	CHECK_EQ_INT(write_sample(dir, 1), 0);
	CHECK(mt_trace_create(dir, 1, NULL, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "not empty") != NULL);
	rmtrace(dir);
}

/* record -o DIR's layout: the trace in DIR/kernel, as an LTTng session
   lays out its kernel trace; the reader opens DIR, DIR/kernel, and the
   flat traces earlier versions wrote (the tests above) */
TEST(session_layout)
{
	char *dir = tmpdir(), err[256] = "", path[128];
	struct mt_trace_writer *w;
	struct mt_trace *t;
	struct mt_trace_event ev;

	CHECK(dir != NULL);
	CHECK((w = mt_trace_create_session(dir, 1, NULL, err, sizeof(err))) != NULL);
	CHECK(mt_trace_event(w, 0, 5, (uint32_t)mt_trace_add_class(w, "BEGIN", NULL, 0),
			     NULL) == 0);
	CHECK_EQ_INT(mt_trace_close(w, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/kernel/channel0_0", dir);
	CHECK(access(path, R_OK) == 0);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	CHECK(access(path, F_OK) != 0);
	CHECK((t = mt_trace_open(dir, err, sizeof(err))) != NULL);
	CHECK(t && mt_trace_next(t, &ev, err, sizeof(err)) == 1 && ev.ts == 5);
	mt_trace_free(t);
	snprintf(path, sizeof(path), "%s/kernel", dir);
	CHECK((t = mt_trace_open(path, err, sizeof(err))) != NULL);
	mt_trace_free(t);
	CHECK(mt_trace_create_session(dir, 1, NULL, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "not empty") != NULL);
	rmtrace(dir);
}

TEST(bad_trace)
{
	char err[256] = "";

	CHECK(mt_trace_open("/nonexistent-trace", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "metadata") != NULL);
}

/* Rewrites dir's metadata: a line starting with from (after its tab)
   becomes to; with dup, the line is kept and to follows it. */
static int
edit_metadata(const char *dir, const char *from, const char *to, int dup)
{
	char path[128], tmp[140], line[4096];
	FILE *in, *out;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	if ((in = fopen(path, "r")) == NULL || (out = fopen(tmp, "w")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), in)) {
		int hit = strncmp(line + (line[0] == '\t'), from, strlen(from)) == 0;

		if (!hit || dup)
			fputs(line, out);
		if (hit)
			fprintf(out, "\t%s\n", to);
	}
	fclose(in);
	return fclose(out) == 0 ? rename(tmp, path) : -1;
}

/* A clock offset of more than 2^63 ns is refused (off_s * 10^9 overflowed). */
TEST(hostile_clock_offset)
{
	char *dir = tmpdir(), err[256] = "";

	CHECK(dir != NULL);
	CHECK_EQ_INT(write_sample(dir, 1), 0);
	CHECK_EQ_INT(edit_metadata(dir, "offset_s = ", "offset_s = 9223372036854775807;", 0), 0);
	CHECK(mt_trace_open(dir, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "clock's offset") != NULL);
	CHECK_EQ_INT(edit_metadata(dir, "offset_s = ", "offset_s = 9223372036;", 0), 0);
	CHECK_EQ_INT(edit_metadata(dir, "offset = ", "offset = 9223372036854775807;", 0), 0);
	CHECK(mt_trace_open(dir, err, sizeof(err)) == NULL);
	rmtrace(dir);
}

/* An event class named twice keeps the last name (the first is freed: the
   sanitizer build's leak check). */
TEST(event_named_twice)
{
	char *dir = tmpdir(), err[256] = "";
	struct mt_trace *t;

	CHECK(dir != NULL);
	CHECK_EQ_INT(write_sample(dir, 1), 0);
	CHECK_EQ_INT(edit_metadata(dir, "name = \"BEGIN\"", "name = \"END\";", 1), 0);
	CHECK((t = mt_trace_open(dir, err, sizeof(err))) != NULL);
	CHECK(mt_trace_class_named(t, "END") != NULL && mt_trace_class_named(t, "BEGIN") == NULL);
	mt_trace_free(t);
	rmtrace(dir);
}

/* A packet's cpu_id is below the number of streams, one per CPU as the
   writer writes them: readers size per-CPU arrays by it (a cpu_id of
   50,000,000 made the report take 2 GB; cpu_id 1 of a one-stream trace
   was past the export's array of mt_trace_ncpus). */
TEST(hostile_cpu_id)
{
	static const uint32_t cpus[] = { 50000000, 1 };

	for (size_t k = 0; k < sizeof(cpus) / sizeof(cpus[0]); k++) {
		char *dir = tmpdir(), err[256] = "", path[128], want[32];
		struct mt_trace *t;
		struct mt_trace_event ev;
		FILE *f;
		int rc;

		CHECK(dir != NULL);
		CHECK_EQ_INT(write_sample(dir, 1), 0);
		snprintf(path, sizeof(path), "%s/channel0_0", dir);
		CHECK((f = fopen(path, "r+b")) != NULL);
		CHECK(fseek(f, 56, SEEK_SET) == 0 && fwrite(&cpus[k], 4, 1, f) == 1);
		fclose(f);
		/* refused when the first packet is entered: at open, or at a read */
		rc = -1;
		if ((t = mt_trace_open(dir, err, sizeof(err))) != NULL) {
			while ((rc = mt_trace_next(t, &ev, err, sizeof(err))) == 1)
				;
			mt_trace_free(t);
		}
		CHECK_EQ_INT(rc, -1);
		snprintf(want, sizeof(want), "cpu_id %u ", cpus[k]);
		CHECK(strstr(err, want) != NULL);
		rmtrace(dir);
	}
}

/* A trace with no stream file (a crash before the first buffer was
   written) opens and has no events; the empty list of streams is not
   handed to qsort (NULL: undefined, the sanitizer build's report). */
TEST(no_stream_file)
{
	char *dir = tmpdir(), err[256] = "", path[128];
	struct mt_trace *t;
	struct mt_trace_event ev;

	CHECK(dir != NULL);
	CHECK_EQ_INT(write_sample(dir, 1), 0);
	snprintf(path, sizeof(path), "%s/channel0_0", dir);
	CHECK_EQ_INT(unlink(path), 0);
	CHECK((t = mt_trace_open(dir, err, sizeof(err))) != NULL);
	if (t != NULL)
		CHECK_EQ_INT(mt_trace_next(t, &ev, err, sizeof(err)), 0);
	mt_trace_free(t);
	rmtrace(dir);
}

/* One stream file per CPU, named as LTTng names them (channel0_N: Trace
   Compass's per-CPU views), each packet's context carrying its cpu_id;
   babeltrace2 reads both CPUs' events when it is installed. */
TEST(stream_per_cpu)
{
	char *dir = tmpdir(), path[160], cmd[320], line[512];
	uint32_t cpu;
	int seen[2] = { 0, 0 };
	FILE *f;

	CHECK(dir != NULL);
	CHECK_EQ_INT(write_sample(dir, 2), 0);
	for (uint32_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/channel0_%u", dir, i);
		CHECK((f = fopen(path, "rb")) != NULL);
		if (f == NULL)
			continue;
		CHECK(fseek(f, 56, SEEK_SET) == 0 && fread(&cpu, 4, 1, f) == 1);
		CHECK_EQ_INT(cpu, i);
		fclose(f);
	}
	if (system("command -v babeltrace2 >/dev/null 2>&1") != 0) {
		printf("SKIP stream_per_cpu babeltrace2: not installed\n");
		rmtrace(dir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' 2>&1", dir);
	CHECK((f = popen(cmd, "r")) != NULL);
	while (f && fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, "cpu_id = 0"))
			seen[0]++;
		if (strstr(line, "cpu_id = 1"))
			seen[1]++;
	}
	CHECK(f && pclose(f) == 0);
	CHECK_EQ_INT(seen[0], 3);
	CHECK_EQ_INT(seen[1], 1);
	rmtrace(dir);
}

/* A recording made before the streams were named channel0_N (stream_N)
   still reads. */
TEST(old_stream_name)
{
	char *dir = tmpdir(), err[256] = "", from[160], to[160];
	struct mt_trace *t;
	struct mt_trace_event ev;

	CHECK(dir != NULL);
	CHECK_EQ_INT(write_sample(dir, 1), 0);
	snprintf(from, sizeof(from), "%s/channel0_0", dir);
	snprintf(to, sizeof(to), "%s/stream_0", dir);
	CHECK_EQ_INT(rename(from, to), 0);
	CHECK((t = mt_trace_open(dir, err, sizeof(err))) != NULL);
	if (t != NULL)
		CHECK_EQ_INT(mt_trace_next(t, &ev, err, sizeof(err)), 1);
	mt_trace_free(t);
	rmtrace(dir);
}

MT_TEST_MAIN()
