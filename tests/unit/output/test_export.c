/*
 * The exporters on a small hand-made trace: two threads of machload
 * switching, one IPC message from one to the other, stacks.  Chrome's JSON
 * parses (python3 -m json.tool) and has the on/off-CPU slices and one
 * flow from the sender to the receiver; folded lines are root first with
 * counts; the SVG is well-formed XML (xml.etree) with a rect per frame;
 * speedscope's JSON has its schema's required fields.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "machtrace/export.h"
#include "../mt_test.h"

static const struct mt_trace_field sw_f[] = {
	{ "prev_comm", MT_TF_STR, 0 }, { "prev_tid", MT_TF_INT, 4 },
	{ "prev_prio", MT_TF_INT, 4 }, { "prev_state", MT_TF_INT, 8 },
	{ "next_comm", MT_TF_STR, 0 }, { "next_tid", MT_TF_INT, 4 },
	{ "next_prio", MT_TF_INT, 4 },
};
static const struct mt_trace_field ipc_f[] = {
	{ "msg_id", MT_TF_INT, 4 }, { "msg_name", MT_TF_STR, 0 },
	{ "kmsg", MT_TF_HEX, 8 }, { "comm", MT_TF_STR, 0 },
	{ "tid", MT_TF_INT, 4 }, { "pid", MT_TF_INT, 4 },
};
static const struct mt_trace_field arg_f[] = { { "arg0", MT_TF_INT, 8 } };
static const struct mt_trace_field stk_f[] = {
	{ "trace0", MT_TF_INT, 4 }, { "stack1", MT_TF_STR, 0 },
};

static char dir[64];

static void
sw_on(struct mt_trace_writer *w, int id, uint32_t cpu, uint64_t ts, int prev,
      int state, int next)
{
	struct mt_trace_value v[7] = { { 0, "machload", 0 }, { prev, 0, 0 },
		{ 31, 0, 0 }, { state, 0, 0 }, { 0, "machload", 0 }, { next, 0, 0 },
		{ 31, 0, 0 } };

	mt_trace_event(w, cpu, ts, (uint32_t)id, v);
}

static void
sw(struct mt_trace_writer *w, int id, uint64_t ts, int prev, int state, int next)
{
	sw_on(w, id, 0, ts, prev, state, next);
}

static void
msg(struct mt_trace_writer *w, int id, uint64_t ts, int tid)
{
	struct mt_trace_value v[6] = { { 4242, 0, 0 }, { 0, "machload_echo", 0 },
		{ (int64_t)0xffff8000dead0000LL, 0, 0 }, { 0, "machload", 0 },
		{ tid, 0, 0 }, { 1, 0, 0 } };

	mt_trace_event(w, 0, ts, (uint32_t)id, v);
}

static void
stk(struct mt_trace_writer *w, int id, uint64_t ts, const char *s)
{
	struct mt_trace_value v[2] = { { 1, 0, 0 }, { 0, s, 0 } };

	mt_trace_event(w, 0, ts, (uint32_t)id, v);
}

static int
make_trace(void)
{
	struct mt_trace_writer *w;
	char err[256];
	int s, snd, rcv, k, a;
	struct mt_trace_value a0 = { 7, 0, 0 };

	snprintf(dir, sizeof(dir), "/tmp/mt-export-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	if ((w = mt_trace_create(dir, 1, NULL, err, sizeof(err))) == NULL)
		return -1;
	s = mt_trace_add_class(w, "sched_switch", sw_f, 7);
	snd = mt_trace_add_class(w, "ipc_send", ipc_f, 6);
	rcv = mt_trace_add_class(w, "ipc_receive", ipc_f, 6);
	k = mt_trace_add_class(w, "fbt::vm_fault:entry", stk_f, 2);
	a = mt_trace_add_class(w, "syscall_entry_x", arg_f, 1);
	mt_trace_event(w, 0, 1000, (uint32_t)a, &a0);	/* no thread known yet */
	sw(w, s, 1000, 10, 0, 11);		/* 11 runs from 1 us */
	msg(w, snd, 2000, 11);			/* 11 sends */
	sw(w, s, 3000, 11, 1, 10);		/* 11 waits, 10 runs */
	msg(w, rcv, 4000, 10);			/* 10 receives */
	stk(w, k, 5000, "gnumach`vm_fault+0x10;gnumach`user_trap+0x2");
	stk(w, k, 6000, "gnumach`vm_fault+0x14;gnumach`user_trap+0x2");
	stk(w, k, 7000, "gnumach`kmem_alloc;gnumach`vm_fault;gnumach`user_trap");
	sw(w, s, 8000, 10, 0, 11);
	return mt_trace_close(w, err, sizeof(err));
}

typedef int (*export_fn)(struct mt_trace *, FILE *, const struct mt_export_opts *,
			 char *, size_t);

/* Export the trace in d in format fn into a file; its path. */
static const char *
export_dir(const char *d, export_fn fn, const char *suffix)
{
	static char path[128];
	struct mt_trace *t;
	char err[256];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s.%s", d, suffix);
	if ((t = mt_trace_open(d, err, sizeof(err))) == NULL ||
	    (f = fopen(path, "w")) == NULL)
		return NULL;
	rc = fn(t, f, NULL, err, sizeof(err));
	fclose(f);
	mt_trace_free(t);
	return rc == 0 ? path : NULL;
}

/* Export the trace of make_trace() (made on first use). */
static const char *
export_to(export_fn fn, const char *suffix)
{
	if (dir[0] == '\0' && make_trace() != 0)
		return NULL;
	return export_dir(dir, fn, suffix);
}

/* A trace in d (under dir's name) of one event: an IPC send (no stack
   field) when stack is NULL, else a stack of that text. */
static int
make_one(char *d, size_t len, const char *name, const char *stack)
{
	struct mt_trace_writer *w;
	char err[256];

	snprintf(d, len, "%s-%s", dir, name);
	if (mkdir(d, 0700) != 0 || (w = mt_trace_create(d, 1, NULL, err, sizeof(err))) == NULL)
		return -1;
	if (stack)
		stk(w, mt_trace_add_class(w, "fbt::vm_fault:entry", stk_f, 2), 1000, stack);
	else
		msg(w, mt_trace_add_class(w, "ipc_send", ipc_f, 6), 1000, 10);
	return mt_trace_close(w, err, sizeof(err));
}

static char *
slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int
run(const char *fmt, const char *path)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, path);
	return system(cmd);
}

TEST(chrome_slices_and_flow)
{
	const char *p = export_to(mt_export_chrome, "json");
	char *s;

	CHECK(p != NULL);
	CHECK_EQ_INT(run("python3 -m json.tool %s >/dev/null", p), 0);
	s = slurp(p);
	CHECK(s != NULL);
	/* 11 runs 1..3 us, waits 3..8 us; 10 is preempted 1..3 us */
	CHECK(strstr(s, "\"name\":\"running\",\"pid\":1,\"tid\":11,\"ts\":0.000,\"dur\":2.000") != NULL);
	CHECK(strstr(s, "\"name\":\"waiting\",\"pid\":1,\"tid\":11,\"ts\":2.000,\"dur\":5.000") != NULL);
	CHECK(strstr(s, "\"name\":\"preempted\",\"pid\":1,\"tid\":10,\"ts\":0.000,\"dur\":2.000") != NULL);
	CHECK(strstr(s, "{\"ph\":\"s\",\"cat\":\"ipc\",\"name\":\"ipc\",\"id\":1,\"pid\":1,\"tid\":11,\"ts\":1.000}") != NULL);
	CHECK(strstr(s, "{\"ph\":\"f\",\"cat\":\"ipc\",\"name\":\"ipc\",\"id\":1,\"pid\":1,\"tid\":10,\"ts\":3.000,\"bp\":\"e\"}") != NULL);
	CHECK(strstr(s, "\"name\":\"send machload_echo\"") != NULL);
	CHECK(strstr(s, "\"ph\":\"C\",\"pid\":0,\"name\":\"ipc in flight\"") != NULL);
	CHECK(strstr(s, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"machload\"}}") != NULL);
	CHECK(strstr(s, "\"name\":\"thread_name\",\"pid\":1,\"tid\":10,") != NULL);
	/* an event on no known thread is global, not on a made-up thread
	   pid 0/tid 0 named "?" */
	CHECK(strstr(s, "{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"event\",\"name\":\"syscall_entry_x\"") != NULL);
	CHECK(strstr(s, "\"name\":\"?\"") == NULL);
	CHECK(strstr(s, "\"tid\":0,") == NULL);
}

TEST(folded_lines)
{
	const char *p = export_to(mt_export_folded, "folded");
	char *s;

	CHECK(p != NULL);
	s = slurp(p);
	CHECK(s != NULL);
	CHECK_EQ_STR(s, "gnumach`user_trap;gnumach`vm_fault 2\n"
		     "gnumach`user_trap;gnumach`vm_fault;gnumach`kmem_alloc 1\n");
}

TEST(flamegraph_svg)
{
	const char *p = export_to(mt_export_flamegraph, "svg");

	CHECK(p != NULL);
	/* a background rect and one per frame: user_trap, vm_fault, kmem_alloc */
	CHECK_EQ_INT(run("python3 -c 'import sys, xml.etree.ElementTree as E; "
			 "r = E.parse(sys.argv[1]).getroot(); "
			 "n = len(r.findall(\".//{http://www.w3.org/2000/svg}rect\")); "
			 "t = [x.text for x in r.iter(\"{http://www.w3.org/2000/svg}title\")]; "
			 "sys.exit(0 if n == 4 and any(\"kmem_alloc\" in x for x in t) else 1)' %s", p), 0);
}

/*
 * The differential flame graph: a: 2 -> 6 samples (its share grew from
 * 2/4 to 6/8), b: 2 -> 2 (shrank), c only in the other run (width 0,
 * not drawn).  a's frame is red (blue lowered), b's blue (red lowered),
 * their root "r" white-ish; the other run's count is in each tooltip.
 */
TEST(flamegraph_diff_svg)
{
	struct mt_flame_diff v[] = {
		{ "r;b", 2, 2 }, { "r;a", 6, 2 }, { "r;c", 0, 1 },
	};
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	CHECK(f != NULL);
	CHECK_EQ_INT(mt_flame_diff_svg(f, "t", v, 3), 0);
	fclose(f);
	CHECK(strstr(s, "a (6 events, 75.00%; other run 2, 40.00%)") != NULL);
	CHECK(strstr(s, "b (2 events, 25.00%; other run 2, 40.00%)") != NULL);
	CHECK(strstr(s, "c (") == NULL);
	/* a: share 0.75 vs 0.4: d = 0.35/0.75, k = 97 (truncated) -> rgb(255,158,158) */
	CHECK(strstr(s, "fill=\"rgb(255,158,158)\"") != NULL);
	/* b: 0.25 vs 0.4: d = 0.15/0.4, k = 78 -> rgb(177,177,255) */
	CHECK(strstr(s, "fill=\"rgb(177,177,255)\"") != NULL);
	CHECK(strstr(s, "</svg>") != NULL);
	free(s);
}

TEST(speedscope_schema_fields)
{
	const char *p = export_to(mt_export_speedscope, "speedscope.json");

	CHECK(p != NULL);
	CHECK_EQ_INT(run("python3 -c 'import sys, json; d = json.load(open(sys.argv[1])); "
			 "assert d[\"$schema\"] == \"https://www.speedscope.app/file-format-schema.json\"; "
			 "fr = d[\"shared\"][\"frames\"]; assert all(\"name\" in f for f in fr); "
			 "p = d[\"profiles\"][0]; "
			 "assert all(k in p for k in (\"type\", \"name\", \"unit\", \"startValue\", \"endValue\", \"samples\", \"weights\")); "
			 "assert p[\"type\"] == \"sampled\" and len(p[\"samples\"]) == len(p[\"weights\"]) == 2; "
			 "assert [fr[i][\"name\"] for i in p[\"samples\"][1]] == [\"gnumach`user_trap\", \"gnumach`vm_fault\", \"gnumach`kmem_alloc\"]; "
			 "assert sum(p[\"weights\"]) == p[\"endValue\"] == 3' %s", p), 0);
}

/* A trace of ncpus CPUs in d (under dir's name) with class sched_switch
   (its id in *s), open for switches. */
static struct mt_trace_writer *
sw_trace(char *d, size_t len, const char *name, uint32_t ncpus, int *s)
{
	struct mt_trace_writer *w;
	char err[256];

	if (export_to(mt_export_folded, "folded") == NULL)
		return NULL;
	snprintf(d, len, "%s-%s", dir, name);
	if (mkdir(d, 0700) != 0 ||
	    (w = mt_trace_create(d, ncpus, NULL, err, sizeof(err))) == NULL)
		return NULL;
	*s = mt_trace_add_class(w, "sched_switch", sw_f, 7);
	return w;
}

/* Switches at times past 2^63 ns: Chrome's export keeps a thread's times
   as signed ts + 1, which overflowed (the sanitizer build aborted); the
   JSON still parses. */
TEST(chrome_huge_times)
{
	struct mt_trace_writer *w;
	char d[128], err[256];
	const char *p;
	int s;

	CHECK((w = sw_trace(d, sizeof(d), "huge", 1, &s)) != NULL);
	sw(w, s, 1000, 10, 1, 11);
	sw(w, s, (uint64_t)INT64_MAX, 11, 1, 10);
	sw(w, s, UINT64_MAX - 5, 10, 0, 11);
	CHECK_EQ_INT(mt_trace_close(w, err, sizeof(err)), 0);
	CHECK((p = export_dir(d, mt_export_chrome, "json")) != NULL);
	CHECK_EQ_INT(run("python3 -m json.tool %s >/dev/null", p), 0);
}

/* A two-CPU trace: a track "CPU n" per CPU in task "CPUs", as Perfetto's
   CPU tracks, with a slice per thread's stretch on that CPU. */
TEST(chrome_cpu_tracks)
{
	struct mt_trace_writer *w;
	char d[128], err[256];
	const char *p;
	int s;

	CHECK((w = sw_trace(d, sizeof(d), "cpus", 2, &s)) != NULL);
	sw_on(w, s, 0, 1000, 10, 0, 11);
	sw_on(w, s, 1, 2000, 20, 0, 21);
	sw_on(w, s, 1, 4000, 21, 1, 20);
	sw_on(w, s, 0, 5000, 11, 1, 10);
	CHECK_EQ_INT(mt_trace_close(w, err, sizeof(err)), 0);
	CHECK((p = export_dir(d, mt_export_chrome, "json")) != NULL);
	CHECK_EQ_INT(run("python3 -c 'import json, sys; "
		"e = json.load(open(sys.argv[1]))[\"traceEvents\"]; C = 1 << 30; "
		"n = {x[\"tid\"]: x[\"args\"][\"name\"] for x in e if x[\"ph\"] == \"M\" and x[\"pid\"] == C and \"tid\" in x}; "
		"assert n == {C: \"CPU 0\", C + 1: \"CPU 1\"}, n; "
		"assert any(x[\"ph\"] == \"M\" and x[\"pid\"] == C and x[\"args\"][\"name\"] == \"CPUs\" for x in e); "
		"sl = sorted((x[\"tid\"] - C, x[\"args\"][\"tid\"], x[\"ts\"], x[\"dur\"]) for x in e if x.get(\"cat\") == \"cpu\"); "
		"assert sl == [(0, 10, 0, 0), (0, 10, 4, 0), (0, 11, 0, 4), (1, 20, 0, 1), (1, 20, 3, 1), (1, 21, 1, 2)], sl' %s", p), 0);
}

/* 160,000 distinct frames (1,000 stacks of 160) export in well under 10 s:
   the frame index was a linear search (37 s for as many). */
TEST(speedscope_many_frames)
{
	struct mt_trace_writer *w;
	struct timespec a, b;
	char d[128], err[256], stack[160 * 24];
	int k;

	CHECK(export_to(mt_export_folded, "folded") != NULL);
	snprintf(d, sizeof(d), "%s-frames", dir);
	CHECK(mkdir(d, 0700) == 0 && (w = mt_trace_create(d, 1, NULL, err, sizeof(err))) != NULL);
	k = mt_trace_add_class(w, "fbt::vm_fault:entry", stk_f, 2);
	for (int i = 0; i < 1000; i++) {
		size_t n = 0;

		for (int j = 0; j < 160; j++)
			n += (size_t)snprintf(stack + n, sizeof(stack) - n, "%sgnumach`f%d",
					      j ? ";" : "", i * 160 + j);
		stk(w, k, (uint64_t)i, stack);
	}
	CHECK_EQ_INT(mt_trace_close(w, err, sizeof(err)), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK(export_dir(d, mt_export_speedscope, "speedscope.json") != NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("speedscope_many_frames: %.2f s\n", (double)(b.tv_sec - a.tv_sec) +
	       (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	CHECK(b.tv_sec - a.tv_sec < 10);
}

/* A trace that goes bad after some stacks: the export fails and frees
   what it had collected (the sanitizer build's leak check). */
TEST(stacks_bad_trace)
{
	struct mt_trace_writer *w;
	char d[128], err[256], path[160];
	uint32_t bad = 0xffffffffu;
	FILE *f;
	int k;

	CHECK(export_to(mt_export_folded, "folded") != NULL);
	snprintf(d, sizeof(d), "%s-bad", dir);
	CHECK(mkdir(d, 0700) == 0 && (w = mt_trace_create(d, 1, NULL, err, sizeof(err))) != NULL);
	k = mt_trace_add_class(w, "fbt::vm_fault:entry", stk_f, 2);
	for (int i = 0; i < 3; i++)
		stk(w, k, (uint64_t)i, "gnumach`a");
	CHECK_EQ_INT(mt_trace_close(w, err, sizeof(err)), 0);
	/* the third event's class id (the packet header is 60 bytes, an event
	   12 + 4 + 10) names no class */
	snprintf(path, sizeof(path), "%s/channel0_0", d);
	CHECK((f = fopen(path, "r+b")) != NULL);
	CHECK(fseek(f, 60 + 2 * 26, SEEK_SET) == 0 && fwrite(&bad, 4, 1, f) == 1);
	fclose(f);
	CHECK(export_dir(d, mt_export_folded, "folded") == NULL);
}

/* A trace without stacks: each stack format is empty, not an error (and
   qsort is not given a NULL array: the sanitizer build aborted). */
TEST(no_stacks)
{
	static const export_fn fn[] = {
		mt_export_folded, mt_export_flamegraph, mt_export_speedscope };
	char d[128];
	const char *p;

	CHECK(export_to(mt_export_folded, "folded") != NULL);
	CHECK_EQ_INT(make_one(d, sizeof(d), "nostack", NULL), 0);
	for (size_t i = 0; i < sizeof(fn) / sizeof(fn[0]); i++)
		CHECK(export_dir(d, fn[i], "out") != NULL);
	CHECK((p = export_dir(d, mt_export_folded, "folded")) != NULL);
	CHECK_EQ_STR(slurp(p), "");
}

/* Frame names a guest chose: a newline and ESC cannot start a folded
   line or reach a terminal; bytes that are not UTF-8 keep the SVG
   well-formed; valid UTF-8 passes. */
TEST(hostile_frame_names)
{
	char d[128];
	const char *p;
	char *s;

	CHECK_EQ_INT(make_one(d, sizeof(d), "odd", "gnumach`a\n9 fake;gnumach`\x1b[2Jb;"
			      "gnumach`caf\xc3\xa9;gnumach`\xff\xfe"), 0);
	CHECK((p = export_dir(d, mt_export_folded, "folded")) != NULL);
	CHECK((s = slurp(p)) != NULL);
	CHECK_EQ_STR(s, "gnumach`\xff\xfe;gnumach`caf\xc3\xa9;gnumach`\\x1b[2Jb;"
		     "gnumach`a\\x0a9 fake 1\n");
	CHECK((p = export_dir(d, mt_export_flamegraph, "svg")) != NULL);
	CHECK_EQ_INT(run("python3 -c 'import sys, xml.etree.ElementTree as E; "
			 "r = E.parse(sys.argv[1]).getroot(); "
			 "t = \" \".join(x.text for x in r.iter(\"{http://www.w3.org/2000/svg}title\")); "
			 "sys.exit(0 if \"caf\\u00e9\" in t and \"\\u00ff\\u00fe\" in t else 1)' %s", p), 0);
}

TEST(cleanup)
{
	char cmd[256];

	CHECK(dir[0] != '\0');
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s.* %s-*", dir, dir, dir);
	CHECK_EQ_INT(system(cmd), 0);
}

MT_TEST_MAIN()
