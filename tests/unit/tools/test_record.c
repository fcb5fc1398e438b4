/*
 * machtrace record's setup from its command line (tools/record/setup.c):
 * -o is required, a program or --events must be given, --events' clauses
 * come first under their own name, and the trace's env names the user's
 * programs (a -s script by its path), the workload and the kernel.
 */
#include <stdlib.h>
#include "tools/record/record.h"
#include "../mt_test.h"

static struct tool_record r;
static struct mt_session_client h;

static int
setup(const char *dir, unsigned events, const char *list, int nprogs,
      char **gen, char **name, char *msg, size_t len)
{
	FILE *err = fmemopen(msg, len, "w");
	struct tool_record_args a = { dir, events, list, NULL, nprogs, err };
	int rc;

	memset(&r, 0, sizeof(r));
	memset(&h, 0, sizeof(h));
	msg[0] = '\0';
	rc = tool_record_setup(&r, &a, gen, name, &h);
	fclose(err);
	return rc;
}

TEST(record_needs_a_directory)
{
	char msg[256], *gen, *name;

	CHECK_EQ_INT(setup(NULL, EV_SCHED, "sched", 1, &gen, &name, msg,
			   sizeof(msg)), -1);
	CHECK_EQ_STR(msg, "machtrace: record: -o DIR is required\n");
	CHECK(gen == NULL && name == NULL && h.start == NULL);
}

TEST(record_needs_something_to_record)
{
	char msg[256], *gen, *name;

	CHECK_EQ_INT(setup("/tmp/t", 0, NULL, 0, &gen, &name, msg,
			   sizeof(msg)), -1);
	CHECK(strstr(msg, "nothing to record") != NULL);
	CHECK_EQ_INT(setup("/tmp/t", 0, NULL, 1, &gen, &name, msg,
			   sizeof(msg)), 0);
	CHECK(gen == NULL && name == NULL && msg[0] == '\0');
	CHECK(h.arg == &r && h.start != NULL && h.final == 1);
	CHECK_EQ_STR(r.dir, "/tmp/t");
}

TEST(record_events_generate_the_first_clauses)
{
	char msg[256], *gen, *name;

	CHECK_EQ_INT(setup("/tmp/t", EV_SCHED | EV_IPC, "sched,ipc", 0, &gen,
			   &name, msg, sizeof(msg)), 0);
	CHECK(gen != NULL && r.nclauses >= 2);
	CHECK_EQ_STR(name, "--events sched,ipc");
	CHECK_EQ_INT(r.mask, EV_SCHED | EV_IPC);
	free(gen);
	free(name);
}

TEST(record_env_names_programs_workload_kernel)
{
	struct mt_session_machine m;

	memset(&r, 0, sizeof(r));
	memset(&m, 0, sizeof(m));
	tool_record_program(&r, 0, "");
	CHECK(r.program == NULL);
	tool_record_program(&r, 0, "syscall:::entry");
	tool_record_program(&r, 1, "a.d");
	CHECK_EQ_STR(r.program, "syscall:::entry  -s a.d");
	tool_record_machine(&r, &m);
	CHECK_EQ_STR(r.workload, "machload (its default words)");
	CHECK_EQ_STR(r.kernel, "Debian's gnumach-image-1.8-amd64-up-dbg");
	m.cmd_c = "/bin/ls";
	m.mach.kernel = "/k/gnumach";
	tool_record_machine(&r, &m);
	CHECK_EQ_STR(r.workload, "/bin/ls");
	CHECK_EQ_STR(r.kernel, "/k/gnumach");
}

TEST(record_env_stops_at_its_buffer)
{
	char big[3000];

	memset(&r, 0, sizeof(r));
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (int i = 0; i < 4; i++)
		tool_record_program(&r, 0, big);
	CHECK(strlen(r.program) == sizeof(r.progbuf) - 1);
}

MT_TEST_MAIN()
