/*
 * session/ as a library, without the command: open, compile, the target
 * rule, link, enable, go, work (records to a hook, aggregations walked),
 * stop, close, on the local target.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../mt_test.h"
#include "machtrace/consumer.h"
#include "machtrace/mach.h"
#include "machtrace/session.h"

struct seen {
	const struct mt_prog *prog;
	int64_t traced;
	int nrec;
	int64_t count;
};

static void
on_rec(void *arg, const struct mt_rechdr *h, const struct mt_probe *p,
       uint32_t clause, const uint8_t *data)
{
	struct seen *s = arg;
	const struct mt_clause *cl = &s->prog->clauses[clause];
	const struct mt_action *a = &s->prog->actions[cl->act0];

	if (a->kind == MT_ACT_TRACE) {
		s->traced = mt_rec_int(&s->prog->recs[a->rec0], data);
		s->nrec++;
	}
}

static int
on_agg(void *arg, const struct mt_agg *agg, const struct mt_aggkey *keys,
       uint32_t nkeys, const int64_t *vals)
{
	((struct seen *)arg)->count = vals[0];
	return 0;
}

static struct mt_prog *
compile(struct mt_session *s, const char *text, struct mt_opts *o,
	struct mt_diag *d)
{
	struct mt_cc_src src = { text, "test", 1 };
	struct mt_cc_input in;

	memset(&in, 0, sizeof(in));
	in.srcs = &src;
	in.nsrcs = 1;
	in.opts = o;
	return mt_session_compile(s, &in, d);
}

/* A session with no kernel to read: its programs run on the local target. */
static struct mt_session *
open_local(struct mt_opts *o)
{
	struct mt_live_opts lo;

	memset(&lo, 0, sizeof(lo));
	lo.kernel = "/nonexistent";
	mt_opts_init(o);
	return mt_session_open(&lo, 0, stderr);
}

TEST(session_local_run)
{
	struct mt_session *s;
	struct mt_opts o;
	struct mt_diag d;
	struct mt_prog *prog;
	struct mt_target *t;
	struct mt_image *img;
	struct mt_consumer *c;
	struct seen seen = { NULL, 0, 0, 0 };
	volatile sig_atomic_t intr = 0;
	FILE *out = fopen("/dev/null", "w");
	char err[512], buf[256];
	int bad = 7;

	s = open_local(&o);
	o.quiet = 1;
	CHECK(s != NULL && out != NULL);
	prog = compile(s, "BEGIN { trace(41 + 1); @n = count(); }\n"
		       "BEGIN { @n = count(); exit(0); }\n", &o, &d);
	CHECK(prog != NULL);
	CHECK_EQ_INT(prog->clause_info[1].src, 0);
	CHECK_EQ_INT(mt_session_wants_kernel(s, prog), 0);
	t = mt_session_target(s, prog);
	CHECK(t != NULL);
	CHECK_EQ_STR(t->ops->name, "local");
	img = mt_link(prog, &o, t, &bad, err, sizeof(err));
	CHECK(img != NULL);
	CHECK_EQ_INT(bad, -1);
	CHECK(mt_session_refused(img, t, buf, sizeof(buf)) == NULL);
	CHECK_EQ_INT(t->ops->attach(t, img), 0);
	c = mt_consumer_new(prog, img, &o, t, out, stderr);
	CHECK(c != NULL);
	mt_consumer_attach(c, t->ops->cb(t));
	seen.prog = prog;
	mt_consumer_set_rechook(c, on_rec, &seen);
	CHECK_EQ_INT(t->ops->begin(t), 0);
	{
		struct mt_session_work w = { &o, &intr, out, NULL, NULL };

		CHECK_EQ_INT(mt_session_work(s, t, c, &w), 0);
	}
	CHECK_EQ_INT(mt_session_stop(s, t, c, 0), 0);
	CHECK_EQ_INT(mt_consumer_agg_walk(c, "n", on_agg, &seen), 0);
	CHECK_EQ_INT(seen.nrec, 1);
	CHECK_EQ_INT(seen.traced, 42);
	CHECK_EQ_INT(seen.count, 2);
	CHECK_EQ_INT(mt_consumer_exited(c), 1);
	t->ops->detach(t);
	mt_consumer_free(c);
	mt_target_free(t);
	free(img);
	mt_prog_free(prog);
	mt_session_close(s);
	mt_opts_free(&o);
	fclose(out);
}

/* A description that matches nothing: the link names its clause. */
TEST(session_link_names_clause)
{
	struct mt_session *s;
	struct mt_opts o;
	struct mt_diag d;
	struct mt_prog *prog;
	struct mt_target *t;
	char err[512];
	int bad = -1;

	s = open_local(&o);
	CHECK(s != NULL);
	prog = compile(s, "BEGIN { }\nnosuch:::x { }\n", &o, &d);
	CHECK(prog != NULL);
	t = mt_session_target(s, prog);
	CHECK(t != NULL);
	CHECK(mt_link(prog, &o, t, &bad, err, sizeof(err)) == NULL);
	CHECK_EQ_INT(bad, 1);
	CHECK(strstr(err, "does not match any probes") != NULL);
	mt_target_free(t);
	mt_prog_free(prog);
	mt_session_close(s);
	mt_opts_free(&o);
}

/*
 * A session forced to the kernel (the stock one, read, not booted) asks the
 * kernel target through its ops: args[] typed from its DWARF (ctypes),
 * curpsinfo from its D library (dlib), in one compile.
 */
TEST(session_kernel_contract)
{
	struct mt_live_opts lo;
	struct mt_session *s;
	struct mt_opts o;
	struct mt_diag d;
	struct mt_prog *prog;
	struct mt_target *t;
	struct mt_cc_src src = { "fbt::vm_fault:entry { trace(args[0]->size); "
				 "trace(curpsinfo->pr_pid); }", "test", 1 };
	struct mt_cc_input in;
	char path[4096];

	if (access(mt_stock_kernel(path, sizeof(path)), R_OK) != 0) {
		printf("# SKIP session_kernel_contract: no stock kernel (%s)\n", path);
		return;
	}
	memset(&lo, 0, sizeof(lo));
	mt_opts_init(&o);
	s = mt_session_open(&lo, 1, stderr);
	CHECK(s != NULL);
	memset(&in, 0, sizeof(in));
	in.srcs = &src;
	in.nsrcs = 1;
	in.opts = &o;
	in.flags = MT_CC_COMPILE_ONLY;
	prog = mt_session_compile(s, &in, &d);
	if (prog == NULL)
		printf("# %s\n", d.msg);
	CHECK(prog != NULL);
	t = mt_session_target(s, prog);
	CHECK(t != NULL);
	CHECK_EQ_STR(t->ops->name, "mach");
	CHECK(t->ops->ctypes != NULL && t->ops->dlib != NULL && t->ops->expand != NULL);
	mt_target_free(t);
	mt_prog_free(prog);
	mt_session_close(s);
	mt_opts_free(&o);
}

/* -s: a file's whole text; a directory or a missing file is dtrace's
   "failed to open" message; a bad -x msgids path is refused at once. */
TEST(session_input_reads_and_refuses)
{
	char path[] = "/tmp/mt-src.XXXXXX", msg[256], *text;
	FILE *err;
	int fd = mkstemp(path);
	struct mt_opts o;
	char *bad[] = { (char *)"/nonexistent/msgids" };

	CHECK(fd >= 0);
	CHECK(write(fd, "BEGIN { exit(0); }\n", 19) == 19);
	close(fd);
	err = fmemopen(msg, sizeof(msg), "w");
	text = mt_session_read_source(path, err);
	unlink(path);
	CHECK(text != NULL);
	CHECK_EQ_STR(text, "BEGIN { exit(0); }\n");
	free(text);
	CHECK(mt_session_read_source("/tmp", err) == NULL);
	fclose(err);
	CHECK_EQ_STR(msg, "dtrace: failed to open /tmp: Is a directory\n");
	memset(&o, 0, sizeof(o));
	err = fmemopen(msg, sizeof(msg), "w");
	CHECK_EQ_INT(mt_session_check_msgids(&o, err), 0);
	o.msgids = bad;
	o.nmsgids = 1;
	CHECK_EQ_INT(mt_session_check_msgids(&o, err), -1);
	fclose(err);
	CHECK(strncmp(msg, "dtrace: failed to load msgids: ", 31) == 0);
}

MT_TEST_MAIN()
