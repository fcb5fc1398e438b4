/* msgids files to names: rpctrace's format and naming (msgids/msgids.c). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <sys/stat.h>

#include "machtrace/msgids.h"
#include "machtrace/options.h"
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

/* The generated files compiled into machtrace name what the build's do. */
TEST(msgids_builtin)
{
	struct mt_msgids *m = mt_msgids_new(), *d = mt_msgids_new();
	struct mt_msgid_entry e, f;
	char err[256] = "", dir[256];
	size_t i;

	snprintf(dir, sizeof dir, "%s/msgids", getenv("BUILD") ? getenv("BUILD") : "build");
	CHECK(mt_msgids_load_text(m, mt_msgids_builtin_text, mt_msgids_builtin_size,
				  "builtin", err, sizeof err) > 100);
	CHECK(mt_msgids_load_dir(d, dir, err, sizeof err) > 100);
	CHECK_EQ_INT(mt_msgids_count(m), mt_msgids_count(d));
	for (i = 0; mt_msgids_entry(m, i, &e) && mt_msgids_entry(d, i, &f); i++)
		if (e.id != f.id || strcmp(e.routine, f.routine) || e.is_reply != f.is_reply)
			break;
	CHECK_EQ_INT(i, mt_msgids_count(m));
	mt_msgids_free(m);
	mt_msgids_free(d);
}

/* One entry per id, ascending; a later file's entry replaces the earlier. */
TEST(msgids_entries_unique)
{
	struct mt_msgids *m = mt_msgids_new();
	struct mt_msgid_entry e;
	char err[256] = "";
	long last = -1;
	size_t i;

	CHECK_EQ_INT(mt_msgids_load_file(m, write_file("u1.msgids", "a 100 x 0 100 200\n"),
					 err, sizeof err), 1);
	CHECK_EQ_INT(mt_msgids_load_file(m, write_file("u2.msgids", "b 100 y 0 100 200\nb 100 z 1 101 201\n"),
					 err, sizeof err), 2);
	CHECK_EQ_INT(mt_msgids_count(m), 4);
	for (i = 0; mt_msgids_entry(m, i, &e); i++) {
		CHECK(e.id > last);
		last = e.id;
	}
	CHECK_EQ_INT(i, 4);
	CHECK(mt_msgids_entry(m, 0, &e));
	CHECK_EQ_STR(e.routine, "y");
	CHECK(mt_msgids_entry(m, 2, &e));
	CHECK_EQ_INT(e.id, 200);
	CHECK_EQ_INT(e.is_reply, 1);
	mt_msgids_free(m);
}

/* mt_msgids_open: built-in < sysdir < paths; a bad path fails it all. */
TEST(msgids_open_precedence)
{
	struct mt_msgids *m;
	struct mt_msgid_name n;
	char err[256] = "", sys[256], user[256];
	char *paths[2];

	CHECK(write_file("first.msgids", ""));	/* makes tmpdir */
	snprintf(sys, sizeof sys, "%s/sysd", tmpdir);
	snprintf(user, sizeof user, "%s/userd", tmpdir);
	mkdir(sys, 0700);
	mkdir(user, 0700);
	write_file("sysd/s.msgids", "hs 2000 host_tc 61 2061 2161\nhs 2000 host_ti 12 2012 2112\n");
	write_file("userd/u.msgids", "us 2000 user_ti 12 2012 2112\n");
	paths[0] = user;
	m = mt_msgids_open(sys, paths, 1, err, sizeof err);
	CHECK(m != NULL);
	CHECK_EQ_INT(mt_msgids_lookup(m, 2161, &n), 1);
	CHECK_EQ_STR(n.routine, "host_tc-reply");
	CHECK_EQ_INT(mt_msgids_lookup(m, 2012, &n), 1);
	CHECK_EQ_STR(n.routine, "user_ti");
	CHECK_EQ_STR(n.subsystem, "us");
	CHECK_EQ_INT(mt_msgids_lookup(m, 2007, &n), 1);
	CHECK_EQ_STR(n.routine, "task_create");
	mt_msgids_free(m);
	/* a missing sysdir is no source; a missing user path is an error */
	m = mt_msgids_open("/nonexistent", NULL, 0, err, sizeof err);
	CHECK(m != NULL);
	mt_msgids_free(m);
	paths[1] = "/nonexistent/u.msgids";
	CHECK(mt_msgids_open(sys, paths, 2, err, sizeof err) == NULL);
	CHECK(strstr(err, "/nonexistent/u.msgids") != NULL);
	/* a directory of the user's without any routine is an error */
	snprintf(user, sizeof user, "%s/emptyd", tmpdir);
	mkdir(user, 0700);
	CHECK_EQ_INT(mt_msgids_load_path(m = mt_msgids_new(), user, err, sizeof err), -1);
	CHECK(strstr(err, "no routines") != NULL);
	mt_msgids_free(m);
}

/* -x msgids=A:B appends both, -x msgids again appends; empty paths and
   the option in a D program are refused. */
TEST(msgids_option)
{
	struct mt_opts o;
	char err[256];

	mt_opts_init(&o);
	CHECK_EQ_INT(mt_opts_set(&o, "msgids", "/a:/b/c", NULL, err, sizeof err), 0);
	CHECK_EQ_INT(mt_opts_set(&o, "msgids", "d.msgids", NULL, err, sizeof err), 0);
	CHECK_EQ_INT(o.nmsgids, 3);
	CHECK_EQ_STR(o.msgids[0], "/a");
	CHECK_EQ_STR(o.msgids[1], "/b/c");
	CHECK_EQ_STR(o.msgids[2], "d.msgids");
	CHECK_EQ_INT(mt_opts_set(&o, "msgids", "/a::/b", NULL, err, sizeof err), -1);
	CHECK_EQ_INT(mt_opts_set(&o, "msgids", "", NULL, err, sizeof err), -1);
	CHECK_EQ_INT(mt_opts_set(&o, "msgids", NULL, NULL, err, sizeof err), -1);
	CHECK_EQ_INT(mt_opts_set_pragma(&o, "msgids", "/x", NULL, err, sizeof err), -1);
	CHECK(strstr(err, "within a D program") != NULL);
	mt_opts_free(&o);
	CHECK_EQ_INT(o.nmsgids, 0);
}

MT_TEST_MAIN()
