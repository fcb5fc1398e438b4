/*
 * mach_msgname()/mach_msgsubsystem(): the link stage's msgids table
 * (link/msgtab.c), its checks in the verifier, and the probe-context
 * lookup (runtime/msgid.c) against the host library's naming.
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include "../mt_test.h"
#include "tests/lib/rtimg.h"
#include "link/link_int.h"
#include "machtrace/compiler.h"
#include "machtrace/msgids.h"
#include "machtrace/options.h"
#include "runtime/rt.h"

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char path[256];

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof tmpdir, "/tmp/mt-msgid.XXXXXX");
		if (!mkdtemp(tmpdir))
			return NULL;
	}
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	return path;
}

static const char *write_file(const char *name, const char *text)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "w");

	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return path;
}

/* A BEGIN image from the builder with t's table appended, as layout.c does. */
static struct mt_image *image_with(const struct lmsgtab *t)
{
	struct ib b;
	struct mt_image *img;
	uint32_t off, size;

	ib_init(&b);
	ib_clause(&b, 0, 0, 0);
	img = ib_build(&b);
	off = (img->size + 7) & ~7u;
	size = off + ((t->n * (uint32_t)sizeof(struct mt_msgid) + 7) & ~7u) + t->strsize;
	img = realloc(img, size);
	memset((char *)img + img->size, 0, size - img->size);
	img->nmsgids = t->n;
	img->msgids_off = off;
	if (t->n)
		memcpy((char *)img + off, t->v, t->n * sizeof(struct mt_msgid));
	img->msgstr_off = size - t->strsize;
	img->msgstr_size = t->strsize;
	if (t->strsize)
		memcpy((char *)img + img->msgstr_off, t->str, t->strsize);
	img->size = size;
	return img;
}

static const char *name_of(const struct mt_image *img, long id, int sub)
{
	static char out[257];

	rt_msgid_name(img, id, sub, out, sizeof out);
	return out;
}

/*
 * Sources in precedence order: the built-in gnumach files < the host's
 * directory < -x msgids paths (a file, then a directory), as the image
 * carries them.
 */
TEST(msgtab_precedence)
{
	struct mt_opts o;
	struct lmsgtab t;
	struct mt_image *img;
	char err[512] = "", sysdir[300], userdir[300];
	char *paths[2];

	mt_opts_init(&o);
	snprintf(sysdir, sizeof sysdir, "%s", tmp_path("sys"));
	snprintf(userdir, sizeof userdir, "%s", tmp_path("user"));
	CHECK(mkdir(sysdir, 0700) == 0 && mkdir(userdir, 0700) == 0);
	write_file("sys/a.msgids", "hostsys 2000 host_thread_create 61 2061 2161\n"
		   "hostsys 2000 host_task_info 12 2012 2112\n");
	paths[0] = strdup(write_file("one.msgids", "userf 2000 user_task_info 12 2012 2112\n"));
	write_file("user/x.msgids", "userd 9000 mine 0 9000 9100\n");
	paths[1] = userdir;
	o.msgids = paths;
	o.nmsgids = 2;
	CHECK_EQ_INT(link_msgtab(&o, sysdir, &t, err, sizeof err), 0);
	img = image_with(&t);
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof err), 0);
	CHECK_EQ_STR(name_of(img, 2061, 0), "host_thread_create");	/* sys > built-in */
	CHECK_EQ_STR(name_of(img, 2161, 0), "host_thread_create-reply");
	CHECK_EQ_STR(name_of(img, 2161, 1), "hostsys");
	CHECK_EQ_STR(name_of(img, 2012, 0), "user_task_info");	/* user > sys */
	CHECK_EQ_STR(name_of(img, 2012, 1), "userf");
	CHECK_EQ_STR(name_of(img, 9000, 0), "mine");
	CHECK_EQ_STR(name_of(img, 2007, 0), "task_create");		/* built-in */
	CHECK_EQ_STR(name_of(img, 2007, 1), "mach");
	CHECK_EQ_STR(name_of(img, 3204, 0), "mach_port_allocate");
	free(img);
	free(paths[0]);
	link_msgtab_free(&t);
}

/*
 * Probe context names every id as the host library does: each entry,
 * replies by column and by rpctrace's rule, unknown and negative ids.
 */
TEST(msgid_lookup_matches_host)
{
	struct mt_opts o;
	struct lmsgtab t;
	struct mt_image *img;
	struct mt_msgids *m;
	struct mt_msgid_name n;
	char err[512] = "", *paths[1];
	int bad = 0;

	mt_opts_init(&o);
	/* 1500: a reply by its column; 1100, 1101: by the rule (11 is odd);
	   1600 after the reply 1500: no rule for a reply's id + 100 */
	paths[0] = (char *)write_file("rule.msgids", "foo 1000 op_a 0 1000 1100\n"
				      "foo 1000 op_b 1 1001 1500\n");
	o.msgids = paths;
	o.nmsgids = 1;
	CHECK_EQ_INT(link_msgtab(&o, NULL, &t, err, sizeof err), 0);
	m = mt_msgids_open(NULL, paths, 1, err, sizeof err);
	CHECK(m != NULL);
	img = image_with(&t);
	CHECK_EQ_INT(t.n, mt_msgids_count(m));
	for (uint32_t i = 1; i < t.n; i++)
		bad += t.v[i].id <= t.v[i - 1].id;
	CHECK_EQ_INT(bad, 0);
	for (long id = -250; id < 5200 && !bad; id++) {
		mt_msgids_lookup(m, id, &n);
		if (strcmp(name_of(img, id, 0), n.routine) ||
		    strcmp(name_of(img, id, 1), n.subsystem)) {
			printf("# id %ld: probe context '%s' '%s', host '%s' '%s'\n", id,
			       name_of(img, id, 0), name_of(img, id, 1), n.routine, n.subsystem);
			bad = 1;
		}
	}
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_STR(name_of(img, 1101, 0), "op_b-reply");
	CHECK_EQ_STR(name_of(img, 1500, 0), "op_b-reply");
	CHECK_EQ_STR(name_of(img, 1600, 0), "1600");
	CHECK_EQ_STR(name_of(img, 1400, 0), "1400");
	CHECK_EQ_STR(name_of(img, -5, 0), "-5");
	CHECK_EQ_STR(name_of(img, -5, 1), "");
	CHECK_EQ_STR(name_of(img, INT32_MIN, 0), "-2147483648");
	CHECK_EQ_STR(name_of(img, 2161, 0), "thread_create-reply");
	mt_msgids_free(m);
	free(img);
	link_msgtab_free(&t);
}

/* Names are cut to the buffer, always NUL-terminated; no table: numbers. */
TEST(msgid_truncation_and_empty)
{
	struct lmsgtab t;
	struct mt_image *img;
	char out[8], err[256];

	CHECK_EQ_INT(link_msgtab(NULL, NULL, &t, err, sizeof err), 0);
	img = image_with(&t);
	CHECK_EQ_INT(rt_msgid_name(img, 2161, 0, out, sizeof out), 1);
	CHECK_EQ_STR(out, "thread_");
	CHECK_EQ_INT(rt_msgid_name(img, 123456789, 0, out, sizeof out), 0);
	CHECK_EQ_STR(out, "1234567");
	free(img);
	link_msgtab_free(&t);
	memset(&t, 0, sizeof t);
	img = image_with(&t);
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof err), 0);
	CHECK_EQ_STR(name_of(img, 2061, 0), "2061");
	CHECK_EQ_STR(name_of(img, 2161, 1), "");
	free(img);
}

/* The verifier refuses a table probe context could not search safely. */
TEST(msgid_verify_rejects)
{
	struct lmsgtab t;
	struct mt_image *img;
	struct mt_msgid *v;
	char err[256];

	CHECK_EQ_INT(link_msgtab(NULL, NULL, &t, err, sizeof err), 0);
	img = image_with(&t);
	v = (struct mt_msgid *)((char *)img + img->msgids_off);

	v[3].id = v[2].id;
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof err), -1);
	CHECK(strstr(err, "ascending") != NULL);
	v[3] = t.v[3];
	v[5].name = img->msgstr_size;
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof err), -1);
	CHECK(strstr(err, "outside msgstr") != NULL);
	v[5] = t.v[5];
	v[6].flags = 4;
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof err), -1);
	v[6] = t.v[6];
	((char *)img)[img->msgstr_off + img->msgstr_size - 1] = 'x';
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof err), -1);
	CHECK(strstr(err, "NUL") != NULL);
	((char *)img)[img->msgstr_off + img->msgstr_size - 1] = 0;
	img->nmsgids += 1000;
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof err), -1);
	CHECK(strstr(err, "outside the image") != NULL);
	img->nmsgids -= 1000;
	CHECK_EQ_INT(mt_rt_verify(img, err, sizeof err), 0);
	free(img);
	link_msgtab_free(&t);
}

static struct mt_image *link_text(const char *text, const char *path)
{
	static struct mt_opts o;
	struct mt_cc_src src = { text, text, 1 };
	struct mt_cc_input in = { 0 };
	struct mt_target *tg = mt_local_target_new();
	struct mt_diag d;
	struct mt_prog *p;
	struct mt_image *img;
	char *paths[1] = { (char *)path }, err[512];

	mt_opts_init(&o);
	o.msgids = paths;
	o.nmsgids = path != NULL;
	in.srcs = &src;
	in.nsrcs = 1;
	in.opts = &o;
	p = mt_compile(&in, &d);
	img = p ? mt_link(p, &o, tg, NULL, err, sizeof err) : NULL;
	mt_prog_free(p);
	mt_target_free(tg);
	return img;
}

/* Only a program that names messages carries the table; a bad -x msgids
   path fails its link. */
TEST(msgtab_only_when_used)
{
	struct mt_image *a = link_text("BEGIN { trace(strlen(\"x\")); }", NULL);
	struct mt_image *b = link_text("BEGIN { trace(mach_msgsubsystem(2061)); }", NULL);
	struct mt_image *c = link_text("BEGIN { trace(mach_msgname(2061)); }", "/nonexistent.msgids");

	CHECK(a != NULL && b != NULL);
	CHECK_EQ_INT(a->nmsgids, 0);
	CHECK_EQ_INT(a->msgstr_size, 0);
	CHECK(b->nmsgids > 300);
	CHECK(b->size > a->size + b->nmsgids * sizeof(struct mt_msgid));
	CHECK(c == NULL);
	free(a);
	free(b);
	free(c);
}

TEST(msgid_cleanup)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	CHECK(!tmpdir[0] || system(cmd) == 0);
}

MT_TEST_MAIN()
