/*
 * The report from a trace the CTF writer wrote: LTTng-named events reach
 * the right views, each CPU's drops and the env come through the reader.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../mt_test.h"
#include "machtrace/trace.h"
#include "output/report/load.h"

static const struct mt_trace_field sw[] = {
	{ "prev_comm", MT_TF_STR, 0 }, { "prev_tid", MT_TF_INT, 4 },
	{ "prev_prio", MT_TF_INT, 4 }, { "prev_state", MT_TF_INT, 8 },
	{ "next_comm", MT_TF_STR, 0 }, { "next_tid", MT_TF_INT, 4 },
	{ "next_prio", MT_TF_INT, 4 },
};
/* as record writes them (tools/record/events.c) */
static const struct mt_trace_field ipc[] = {
	{ "tid", MT_TF_INT, 4 }, { "msg_name", MT_TF_STR, 0 },
	{ "remote_port", MT_TF_HEX, 8 }, { "local_port", MT_TF_HEX, 8 },
};
/* as record writes them: no tid (the CPU's thread from sched_switch) */
static const struct mt_trace_field sys[] = { { "arg0", MT_TF_HEX, 8 } };
static const struct mt_trace_field prof[] = { { "stack0", MT_TF_STR, 0 } };

static int
write_trace(const char *dir)
{
	struct mt_trace_env env = { .hostname = "h", .trace_name = "unit" };
	struct mt_trace_writer *w;
	struct mt_trace_value v[7];
	char err[256];
	int c_sw, c_snd, c_rcv, c_in, c_out, c_prof;

	w = mt_trace_create(dir, 2, &env, err, sizeof(err));
	if (w == NULL)
		return -1;
	c_sw = mt_trace_add_class(w, "sched_switch", sw, 7);
	c_snd = mt_trace_add_class(w, "ipc_send", ipc, 4);
	c_rcv = mt_trace_add_class(w, "ipc_receive", ipc, 4);
	c_in = mt_trace_add_class(w, "syscall_entry_mach_msg_trap", sys, 1);
	c_out = mt_trace_add_class(w, "syscall_exit_mach_msg_trap", sys, 1);
	c_prof = mt_trace_add_class(w, "profile", prof, 1);
	memset(v, 0, sizeof(v));
	v[0].s = "swapper"; v[1].i = 0; v[4].s = "machload"; v[5].i = 12;
	mt_trace_event(w, 0, 1000, (uint32_t)c_sw, v);
	v[0].i = 12; v[1].s = "machload_echo"; v[2].i = 0xb0; v[3].i = 0xa0;
	mt_trace_event(w, 0, 1100, (uint32_t)c_in, v);
	mt_trace_event(w, 0, 1200, (uint32_t)c_snd, v);
	/* the reply to port 0xa0, seen in the server's thread 13 */
	v[0].i = 13; v[1].s = "machload_echo-reply"; v[2].i = 0xa0; v[3].i = 0;
	mt_trace_event(w, 1, 1300, (uint32_t)c_rcv, v);
	mt_trace_event(w, 0, 1400, (uint32_t)c_out, v);
	v[0].s = "gnumach`thread_invoke+0x1f;gnumach`thread_block+0x8;"
		"gnumach`mach_msg_trap+0x2a0";
	mt_trace_event(w, 1, 1500, (uint32_t)c_prof, v);
	/* a tick in user mode: no kernel frame, still a sample */
	v[0].s = "";
	mt_trace_event(w, 1, 1600, (uint32_t)c_prof, v);
	v[0].s = "machload"; v[1].i = 12; v[4].s = "swapper"; v[5].i = 0;
	mt_trace_event(w, 0, 2000, (uint32_t)c_sw, v);
	mt_trace_discarded(w, 1, 4);
	return mt_trace_close(w, err, sizeof(err));
}

TEST(trace_to_page)
{
	char dir[] = "/tmp/mt-report-XXXXXX", err[256], cmd[64], *buf = NULL;
	struct mt_trace *t;
	struct rp *r;
	size_t len = 0;
	FILE *fp;
	int rc;

	CHECK(mkdtemp(dir) != NULL);
	rc = write_trace(dir);
	t = rc == 0 ? mt_trace_open(dir, err, sizeof(err)) : NULL;
	r = rp_new();
	fp = open_memstream(&buf, &len);
	rc = t != NULL && r != NULL && fp != NULL &&
		rp_load_trace(r, t, NULL, NULL, err, sizeof(err)) == 0 &&
		rp_write_html(r, fp, "t") == 0;
	if (fp != NULL)
		fclose(fp);
	rp_free(r);
	mt_trace_free(t);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		rc = 0;
	CHECK(rc);
	CHECK(strstr(buf, "[\"domain\",\"kernel\"]") != NULL);
	CHECK(strstr(buf, "{\"cpu\":1,\"events\":3,\"discarded\":4}") != NULL);
	CHECK(strstr(buf, "\"samples\":2,\"flame\":{\"name\":\"all\",\"value\":2,")
	      != NULL);
	CHECK(strstr(buf, "{\"cpu\":0,\"events\":5,\"discarded\":0}") != NULL);
	CHECK(strstr(buf, "\"tid\":12,\"comm\":\"machload\",\"oncpu\":1000,"
		     "\"nslices\":1,\"slices\":[[0,1000,0]]") != NULL);
	CHECK(strstr(buf, "{\"name\":\"machload_echo\",\"sends\":1,"
		     "\"receives\":0,\"calls\":1,\"min\":100,") != NULL);
	CHECK(strstr(buf, "{\"name\":\"mach_msg_trap\",\"sends\":1,"
		     "\"receives\":1,\"calls\":1,\"min\":300,") != NULL);
	CHECK(strstr(buf, "{\"name\":\"gnumach`mach_msg_trap\",\"value\":1,"
		     "\"children\":[{\"name\":\"gnumach`thread_block\",\"value"
		     "\":1,\"children\":[{\"name\":\"gnumach`thread_invoke\"")
	      != NULL);
	free(buf);
}

MT_TEST_MAIN()
