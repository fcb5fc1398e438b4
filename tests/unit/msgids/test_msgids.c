/* msgids files to names: rpctrace's format and naming (msgids/msgids.c). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "machtrace/msgids.h"
#include "tests/unit/mt_test.h"


static char tmpdir[64];

static const char *write_file(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof tmpdir, "/tmp/mt-msgids.XXXXXX");
		if (!mkdtemp(tmpdir))
			return NULL;
	}
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return path;
}

/* The msgids files the build generated from gnumach-dev's .defs with MIG. */
TEST(msgids_build_files)
{
	struct mt_msgids *m = mt_msgids_new();
	struct mt_msgid_name n;
	char err[256] = "", dir[256];
	int k;

	/* run from the source tree, as tests/run-all.sh does */
	snprintf(dir, sizeof dir, "%s/msgids", getenv("BUILD") ? getenv("BUILD") : "build");
	k = mt_msgids_load_dir(m, dir, err, sizeof err);

	CHECK(k > 100);
	CHECK_EQ_INT(mt_msgids_lookup(m, 2061, &n), 1);
	CHECK_EQ_STR(n.subsystem, "mach");
	CHECK_EQ_STR(n.routine, "thread_create");
	CHECK_EQ_INT(mt_msgids_lookup(m, 2161, &n), 1);
	CHECK_EQ_STR(n.routine, "thread_create-reply");
	CHECK_EQ_INT(mt_msgids_lookup(m, 3204, &n), 1);
	CHECK_EQ_STR(n.subsystem, "mach_port");
	CHECK_EQ_STR(n.routine, "mach_port_allocate");
	CHECK_EQ_INT(mt_msgids_lookup(m, 2012, &n), 1);
	CHECK_EQ_STR(n.routine, "task_info");
	CHECK_EQ_INT(mt_msgids_lookup(m, 2803, &n), 1);
	CHECK_EQ_STR(n.subsystem, "device");
	CHECK_EQ_STR(n.routine, "device_write_inband");
	CHECK_EQ_INT(mt_msgids_lookup(m, 4800, &n), 1);
	CHECK_EQ_STR(n.subsystem, "machload");
	CHECK_EQ_STR(n.routine, "machload_echo");
	CHECK_EQ_INT(mt_msgids_lookup(m, 4900, &n), 1);
	CHECK_EQ_STR(n.routine, "machload_echo-reply");
	CHECK_EQ_INT(mt_msgids_lookup(m, 12345, &n), 0);
	CHECK_EQ_STR(n.routine, "12345");
	CHECK_EQ_STR(n.subsystem, "");
	mt_msgids_free(m);
}

/*
 * An id absent from the files is a reply only when (id/100) is odd
 * (rpctrace's rule); the reply-id column names replies too.
 */
TEST(msgids_reply_rule)
{
	struct mt_msgids *m = mt_msgids_new();
	struct mt_msgid_name n;
	char err[256] = "";
	const char *p = write_file("a.msgids",
		"# comment\n\nfoo 1000 op_a 0 1000 1100\nfoo 1000 op_b 1 1001 1500\n");

	CHECK(p);
	CHECK_EQ_INT(mt_msgids_load_file(m, p, err, sizeof err), 2);
	CHECK_EQ_INT(mt_msgids_lookup(m, 1500, &n), 1);
	CHECK_EQ_STR(n.routine, "op_b-reply");
	CHECK_EQ_INT(mt_msgids_lookup(m, 1101, &n), 1);
	CHECK_EQ_STR(n.routine, "op_b-reply");
	CHECK_EQ_INT(mt_msgids_lookup(m, 1100, &n), 1);
	CHECK_EQ_STR(n.routine, "op_a-reply");
	p = write_file("b.msgids", "bar 1200 op_c 0 1200 1300\n");
	CHECK_EQ_INT(mt_msgids_load_file(m, p, err, sizeof err), 1);
	/* 1300 is op_c's reply by its column; 1400 is even: no reply rule */
	CHECK_EQ_INT(mt_msgids_lookup(m, 1300, &n), 1);
	CHECK_EQ_STR(n.routine, "op_c-reply");
	CHECK_EQ_INT(mt_msgids_lookup(m, 1400, &n), 0);
	CHECK_EQ_STR(n.routine, "1400");
	mt_msgids_free(m);
}

/* A later file overrides an earlier one's id. */
TEST(msgids_later_wins)
{
	struct mt_msgids *m = mt_msgids_new();
	struct mt_msgid_name n;
	char err[256] = "";

	CHECK_EQ_INT(mt_msgids_load_file(m, write_file("c.msgids", "sys 5000 old 0 5000 5100\n"),
					 err, sizeof err), 1);
	CHECK_EQ_INT(mt_msgids_load_file(m, write_file("d.msgids", "mine 5000 new 0 5000 5100\n"),
					 err, sizeof err), 1);
	CHECK_EQ_INT(mt_msgids_lookup(m, 5000, &n), 1);
	CHECK_EQ_STR(n.subsystem, "mine");
	CHECK_EQ_STR(n.routine, "new");
	mt_msgids_free(m);
}

/* Bad input: an error naming file and line, nothing of the file added. */
TEST(msgids_errors)
{
	struct mt_msgids *m = mt_msgids_new();
	struct mt_msgid_name n;
	char err[256] = "";
	const char *p = write_file("bad.msgids", "ok 600 fine 0 600 700\nbroken line\n");

	CHECK_EQ_INT(mt_msgids_load_file(m, p, err, sizeof err), -1);
	CHECK(strstr(err, "bad.msgids:2:"));
	CHECK_EQ_INT(mt_msgids_count(m), 0);
	CHECK_EQ_INT(mt_msgids_lookup(m, 600, &n), 0);
	CHECK_EQ_INT(mt_msgids_load_file(m, "/nonexistent/x.msgids", err, sizeof err), -1);
	CHECK(strstr(err, "/nonexistent/x.msgids"));
	CHECK_EQ_INT(mt_msgids_load_dir(m, "/nonexistent", err, sizeof err), 0);
	p = write_file("bad2.msgids", "sys 600 r 0 600 700 extra\n");
	CHECK_EQ_INT(mt_msgids_load_file(m, p, err, sizeof err), -1);
	mt_msgids_free(m);
}

MT_TEST_MAIN()
