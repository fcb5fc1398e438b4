/*
 * The report's model on hand-fed events: what its JSON says for a trace
 * without a view's events (null: the page says it is absent), on-CPU
 * slices from sched_switch, RPC latency from request to reply, the call
 * tree of stack samples, and the page's escaping of names.
 */
#include <stdlib.h>
#include <string.h>
#include "../mt_test.h"
#include "output/report/report.h"

/* The page for r, as a string (caller frees). */
static char *
page(struct rp *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (fp == NULL)
		return NULL;
	if (rp_write_html(r, fp, "t") != 0) {
		fclose(fp);
		free(buf);
		return NULL;
	}
	fclose(fp);
	return buf;
}

TEST(empty_views_are_null)
{
	struct rp *r = rp_new();
	char *s;

	CHECK(r != NULL);
	CHECK(rp_event(r, 5, 0, "other") == 0);
	s = page(r);
	rp_free(r);
	CHECK(s != NULL);
	CHECK(strstr(s, "\"timeline\":null") != NULL);
	CHECK(strstr(s, "\"rpc\":null") != NULL);
	CHECK(strstr(s, "\"traps\":null") != NULL);
	CHECK(strstr(s, "\"heatmap\":null") != NULL);
	CHECK(strstr(s, "\"flame\":null") != NULL);
	CHECK(strstr(s, "\"drops_known\":false") != NULL);
	free(s);
}

TEST(sched_slices)
{
	struct rp *r = rp_new();
	char *s;

	/* cpu 0: tid 1 -> 2 at 100, 2 -> 1 at 130; the trace ends at 150 */
	CHECK(rp_event(r, 100, 0, "sched_switch") == 0);
	CHECK(rp_sched_switch(r, 100, 0, 1, "idle", 2, "machload") == 0);
	CHECK(rp_event(r, 130, 0, "sched_switch") == 0);
	CHECK(rp_sched_switch(r, 130, 0, 2, "machload", 1, "idle") == 0);
	CHECK(rp_event(r, 150, 0, "x") == 0);
	s = page(r);
	rp_free(r);
	CHECK(s != NULL);
	CHECK(strstr(s, "\"switches\":2") != NULL);
	CHECK(strstr(s, "\"tid\":2,\"comm\":\"machload\",\"oncpu\":30,"
		     "\"nslices\":1,\"slices\":[[0,30,0]]") != NULL);
	/* tid 1 runs from 130 to the end of the trace */
	CHECK(strstr(s, "\"tid\":1,\"comm\":\"idle\",\"oncpu\":20,"
		     "\"nslices\":1,\"slices\":[[30,50,0]]") != NULL);
	free(s);
}

TEST(rpc_latency)
{
	struct rp *r = rp_new();
	char *s;

	/* by the reply port 0xa000: the reply's receive fires in the
	   server's thread 9 (the fast handoff), not in the client 7 */
	CHECK(rp_ipc(r, 100, 1, 7, "machload_echo", 0xb000, 0xa000) == 0);
	CHECK(rp_ipc(r, 120, 0, 9, "machload_echo", 0xb000, 0xa000) == 0);
	CHECK(rp_ipc(r, 130, 1, 9, "machload_echo-reply", 0xa000, 0) == 0);
	CHECK(rp_ipc(r, 350, 0, 9, "machload_echo-reply", 0xa000, 0) == 0);
	/* a reply nobody waits for is counted, not timed */
	CHECK(rp_ipc(r, 360, 0, 7, "machload_echo-reply", 0xa000, 0) == 0);
	/* without ports, by the thread */
	CHECK(rp_ipc(r, 370, 1, 3, "task_info", 0, 0) == 0);
	CHECK(rp_ipc(r, 400, 0, 3, "task_info-reply", 0, 0) == 0);
	CHECK(rp_event(r, 100, 0, "ipc_send") == 0);
	CHECK(rp_event(r, 400, 0, "ipc_receive") == 0);
	s = page(r);
	rp_free(r);
	CHECK(s != NULL);
	CHECK(strstr(s, "{\"name\":\"machload_echo\",\"sends\":1,"
		     "\"receives\":1,\"calls\":1,\"min\":250,\"p50\":250,"
		     "\"p95\":250,\"max\":250,\"mean\":250}") != NULL);
	CHECK(strstr(s, "{\"name\":\"machload_echo-reply\",\"sends\":1,"
		     "\"receives\":2,\"calls\":0}") != NULL);
	CHECK(strstr(s, "{\"name\":\"task_info\",\"sends\":1,"
		     "\"receives\":0,\"calls\":1,\"min\":30,") != NULL);
	CHECK(strstr(s, "\"heatmap\":{\"source\":\"rpc\"") != NULL);
	/* 80 columns of 4 ns from 100: 400 in column 75, 350 in 62 */
	CHECK(strstr(s, "\"calls\":2,\"cells\":[[75,0,1],[62,3,1]]") != NULL);
	free(s);
}

/* Times that span 2^64 ns: the heatmap's column width (the span / its
   columns, rounded up) did not wrap to 0 and divide by it (SIGFPE). */
TEST(heatmap_full_span)
{
	struct rp *r = rp_new();
	char *s;

	CHECK(rp_event(r, 0, 0, "ipc_send") == 0);
	CHECK(rp_event(r, UINT64_MAX, 0, "ipc_receive") == 0);
	CHECK(rp_ipc(r, 0, 1, 3, "task_info", 0, 0) == 0);
	CHECK(rp_ipc(r, UINT64_MAX, 0, 3, "task_info-reply", 0, 0) == 0);
	s = page(r);
	rp_free(r);
	CHECK(s != NULL);
	CHECK(strstr(s, "\"heatmap\":{\"source\":\"rpc\",\"cols\":") != NULL);
	CHECK(strstr(s, "\"dt\":0,") == NULL);
	free(s);
}

TEST(flame_tree)
{
	struct rp *r = rp_new();
	const char *a[] = { "leaf_a", "mid", "top" };
	const char *b[] = { "leaf_b", "mid", "top" };
	char *s;

	CHECK(rp_stack(r, a, 3, 2) == 0);
	CHECK(rp_stack(r, b, 3, 1) == 0);
	s = page(r);
	rp_free(r);
	CHECK(s != NULL);
	CHECK(strstr(s, "\"samples\":3,\"flame\":{\"name\":\"all\",\"value\":3,"
		     "\"children\":[{\"name\":\"top\",\"value\":3,\"children\":"
		     "[{\"name\":\"mid\",\"value\":3,\"children\":[{\"name\":"
		     "\"leaf_a\",\"value\":2,\"children\":[]},{\"name\":"
		     "\"leaf_b\",\"value\":1,\"children\":[]}]}]}]}") != NULL);
	free(s);
}

/* A stack as deep as a trace's (256 frames) is drawn whole. */
TEST(flame_deep_stack)
{
	struct rp *r = rp_new();
	const char *f[256];
	const char *p;
	char *s;
	int n = 0;

	for (int i = 0; i < 256; i++)
		f[i] = "frame";
	CHECK(r != NULL);
	CHECK(rp_stack(r, f, 256, 1) == 0);
	s = page(r);
	rp_free(r);
	CHECK(s != NULL);
	for (p = s; (p = strstr(p, "\"children\":[")) != NULL; p++)
		n++;
	CHECK_EQ_INT(n, 257);
	CHECK(strstr(s, "\"name\":\"frame\",\"value\":1,\"children\":[]}]}") != NULL);
	free(s);
}

TEST(escaping)
{
	struct rp *r = rp_new();
	char *s;

	CHECK(rp_meta(r, "program", "x</script><b>\"\\") == 0);
	s = page(r);
	rp_free(r);
	CHECK(s != NULL);
	CHECK(strstr(s, "x\\u003c/script\\u003e\\u003cb\\u003e\\\"\\\\") != NULL);
	free(s);
}

MT_TEST_MAIN()
