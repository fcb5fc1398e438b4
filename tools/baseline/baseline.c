/*
 * machtrace baseline save|compare NAME [--vm N | machine options]
 *                                      [-d SECONDS] [--runs N] [--dir DIR]
 *                                      [--icount]
 *
 * A measurement is N runs of one fixed session (runs are the unit of
 * the comparison), each on a fresh boot, or attached to a running VM
 * with --vm (its workload fixed at vm start, each session -d SECONDS
 * long) (docs/baselines.md): a
 * D program over the ipc, sched, vm and usdt providers, run as a session
 * of this process (as top's), records one printf() per latency sample,
 * taken from its records, and counts and stacks in aggregations, walked
 * at its end: nothing is printed or read back as text.  save stores
 * them as DIR/NAME.json; compare measures again and tests each metric
 * against the stored one (blcompare.c, output/stats: a two-stage
 * bootstrap over the runs, and a noise floor from their run-to-run
 * spread), draws a differential flame graph both ways, and exits 3 when
 * a metric regressed.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>
#include "tools/tools.h"
#include "tools/baseline/baseline.h"
#include "machtrace/consumer.h"
#include "machtrace/vm.h"
#include "machtrace/export.h"
#include "machtrace/stats.h"

#define E_REGRESSED	3

/*
 * The measurement.  Latency: an ipc message from its send to its
 * receive (same kmsg), labelled with machload's phase and the
 * message's name; an rt round trip from one usdt round-trip firing to
 * the next.  Counts: context switches (on-cpu), faults by type,
 * messages sent.  Stacks: machload's user stacks sampled by profile.
 * rtlast is declared: its first assignment (0) would make it an int, and
 * a timestamp past 2^32 ns (a VM up for more than 4.3 s) would lose its
 * high half.
 */
static const char measure_prog[] =
	"string ph;\n"
	"uint64_t rtlast;\n"
	"BEGIN { ph = \"-\"; }\n"
	"machload1:::phase-start { ph = copyinstr(arg0); }\n"
	"machload1:::phase-done { ph = \"-\"; rtlast = 0; }\n"
	"machload1:::round-trip /rtlast/ { printf(\"R %s %d\\n\", ph, "
	"timestamp - rtlast); }\n"
	"machload1:::round-trip { rtlast = timestamp; }\n"
	"ipc:::send { snd[args[0]->msg_addr] = timestamp; @c[\"messages\"] = count(); }\n"
	"ipc:::receive /snd[args[0]->msg_addr]/ { printf(\"L %s %s %d\\n\", ph, "
	"args[0]->msg_name, timestamp - snd[args[0]->msg_addr]); "
	"snd[args[0]->msg_addr] = 0; }\n"
	"sched:::on-cpu { @c[\"context switches\"] = count(); }\n"
	"vm:::fault { @c[args[1] & 2 ? \"faults (write)\" : args[1] & 4 ? "
	"\"faults (execute)\" : args[1] ? \"faults (read)\" : \"faults (wire)\"] = count(); }\n"
	"profile-997 /pid == 1/ { @st[ustack()] = count(); }\n";

struct bl_opts {
	const char *verb, *name, *dir, *vm;
	struct mt_mopts mach;		/* --kernel, --workload, ... */
	long seconds, runs;
	int icount;
	char path[4200];
	struct mt_session_intr intr;
};

static int
bl_usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "machtrace: baseline: %s\n", msg);
	fprintf(stderr, "usage: machtrace baseline save|compare NAME [--vm NAME | machine "
		"options]\n                          [-d SECONDS] [--runs N] [--dir DIR] "
		"[--icount]\n");
	if (!msg) {
		fprintf(stderr, "machine options (a fresh boot of each run; compare: the "
			"baseline's kernel and workload):\n");
		mt_mopt_help(stderr, "  ");
	}
	return MT_EXIT_USAGE;
}

static int
name_ok(const char *s)
{
	if (*s == '\0' || *s == '.')
		return 0;
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') ||
		      ('0' <= *s && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

/* --dir, else $XDG_DATA_HOME/machtrace/baselines, else
   ~/.local/share/machtrace/baselines. */
static int
bl_dir(struct bl_opts *o, char *dir, size_t len)
{
	const char *x = getenv("XDG_DATA_HOME"), *h = getenv("HOME");

	if (o->dir)
		snprintf(dir, len, "%s", o->dir);
	else if (x && *x)
		snprintf(dir, len, "%s/machtrace/baselines", x);
	else if (h && *h)
		snprintf(dir, len, "%s/.local/share/machtrace/baselines", h);
	else {
		fprintf(stderr, "machtrace: baseline: no --dir, $XDG_DATA_HOME or $HOME\n");
		return -1;
	}
	return 0;
}

static int
mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* The temporary files of one measurement; con_off: with --vm, the size
   of the VM's console log when the session began. */
/* A run's directory: the guest's console log. */
struct bl_tmp {
	char dir[64], con[128];
	long con_off;
};

static void
tmp_free(struct bl_tmp *t)
{
	unlink(t->con);
	rmdir(t->dir);
}

static void
show_tail(const char *path, const char *what)
{
	char line[512];
	FILE *f = fopen(path, "r");
	long n = 0;

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f))
		n++;
	rewind(f);
	for (long i = 0; fgets(line, sizeof(line), f); i++)
		if (i >= n - 8)
			fprintf(stderr, "  %s: %s", what, line);
	fclose(f);
}

/* The console shows every phase OK (and machload's end unless -d cut
   the session short). */
static int
workload_ok(const char *con, int timed)
{
	char line[512];
	FILE *f = fopen(con, "r");
	int done = 0, bad = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "machload: done", 14) == 0)
			done = 1;
		if (strstr(line, "FAIL") || strstr(line, "panic") || strstr(line, "db>") ||
		    strstr(line, "unknown word"))
			bad = 1;
	}
	fclose(f);
	return !bad && (done || timed);
}

/* The VM's console log (its state directory's console.log). */
static int
vm_console_path(const char *vm, char *buf, size_t len)
{
	char dir[4096];

	if (mt_vm_dir(vm, dir, sizeof(dir)) != 0)
		return -1;
	snprintf(buf, len, "%s/console.log", dir);
	return 0;
}

static long
vm_console_size(const char *vm)
{
	char path[4200];
	struct stat st;

	if (vm_console_path(vm, path, sizeof(path)) != 0 || stat(path, &st) != 0)
		return 0;
	return (long)st.st_size;
}

/* What the VM's console printed since off: no FAIL, panic or KDB. */
static int
vm_console_ok(const char *vm, long off)
{
	char path[4200], line[512];
	FILE *f;
	int bad = 0;

	if (vm_console_path(vm, path, sizeof(path)) != 0 || (f = fopen(path, "r")) == NULL)
		return 1;
	fseek(f, off, SEEK_SET);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "FAIL") || strstr(line, "panic") || strstr(line, "db>"))
			bad = 1;
	fclose(f);
	return !bad;
}

/* The VM's -icount setting from its QEMU's command line ("" without). */
static void
vm_icount(const char *vm, char *buf, size_t len)
{
	char cmd[8192], path[64], err[256];
	struct mt_vm v;
	ssize_t n = 0;
	int fd;

	buf[0] = '\0';
	if (mt_vm_find(vm, &v, err, sizeof(err)) != 0 || v.qemu_pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)v.qemu_pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		return;
	n = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	for (ssize_t i = 0; i + 1 < n; i += (ssize_t)strlen(cmd + i) + 1)
		if (strcmp(cmd + i, "-icount") == 0 && i + 8 < n)
			snprintf(buf, len, "%s", cmd + i + 8);
}

#define BL_MAXFRAMES 128

/* The session's records and aggregations, going into run r of s. */
struct bl_sess {
	struct bl_set *s;
	struct bl_run *r;
	const struct mt_prog *prog;
	struct mt_consumer *c;
	char *frames[BL_MAXFRAMES];
	int nf, rc;
};

/* A string rec of a record, as a C string in buf. */
static const char *
rec_str(const struct mt_rec *r, const uint8_t *data, char *buf, size_t len)
{
	size_t n = strnlen((const char *)data + r->offset, r->size);

	snprintf(buf, len, "%.*s", (int)n, (const char *)data + r->offset);
	return buf;
}

/*
 * The program's printf()s are its samples, taken from their records (not
 * printed): "R" (phase, ns) an rt round trip, "L" (phase, message, ns)
 * an ipc latency.
 */
static void
bl_record(void *arg, const struct mt_rechdr *h, const struct mt_probe *p,
	  uint32_t clause, const uint8_t *data)
{
	struct bl_sess *b = arg;
	const struct mt_clause *cl = &b->prog->clauses[clause];
	char name[512], ph[128], msg[256];

	for (uint32_t i = 0; i < cl->nacts && b->rc == 0; i++) {
		const struct mt_action *a = &b->prog->actions[cl->act0 + i];
		const char *fmt = b->prog->action_info[cl->act0 + i].fmt;
		const struct mt_rec *r = &b->prog->recs[a->rec0];

		if (a->kind != MT_ACT_PRINTF || fmt == NULL)
			continue;
		if (fmt[0] == 'R' && a->nrecs == 2)
			snprintf(name, sizeof(name), "round-trip latency of %s",
				 rec_str(&r[0], data, ph, sizeof(ph)));
		else if (fmt[0] == 'L' && a->nrecs == 3)
			snprintf(name, sizeof(name), "ipc latency of %s (%s)",
				 rec_str(&r[0], data, ph, sizeof(ph)),
				 rec_str(&r[1], data, msg, sizeof(msg)));
		else
			continue;
		b->rc = bl_sample_add(b->r, name, BL_LATENCY,
				      (double)mt_rec_int(&r[a->nrecs - 1], data));
	}
}

static int
bl_start(void *arg, const struct mt_prog *prog, const struct mt_image *img,
	 struct mt_target *t, struct mt_consumer *c)
{
	struct bl_sess *b = arg;

	b->prog = prog;
	b->c = c;
	mt_consumer_set_rechook(c, bl_record, b);
	return 0;
}

static int
bl_poll(void *arg, struct mt_consumer *c)
{
	return ((struct bl_sess *)arg)->rc != 0;
}

/* @c: a count per name. */
static int
bl_count(void *arg, const struct mt_agg *agg, const struct mt_aggkey *keys,
	 uint32_t nkeys, const int64_t *vals)
{
	struct bl_sess *b = arg;
	char name[256];

	if (nkeys != 1 || keys[0].s == NULL)
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)strnlen(keys[0].s, keys[0].len),
		 keys[0].s);
	b->rc = bl_sample_add(b->r, name, BL_COUNT, (double)vals[0]);
	return b->rc;
}

/* A frame of a stack: its function ("mod`func", offsets dropped). */
static void
bl_frame(void *arg, const char *sym)
{
	struct bl_sess *b = arg;

	if (b->nf < BL_MAXFRAMES && (b->frames[b->nf] = strdup(sym)) != NULL) {
		b->frames[b->nf][strcspn(sym, "+ ;")] = '\0';
		b->nf++;
	}
}

/* frames[0..n), leaf first as the stack gives them, folded root first. */
static int
fold_add(struct bl_set *s, char **frames, int n, uint64_t count)
{
	size_t len = 1;
	char *f;
	int rc;

	for (int i = 0; i < n; i++)
		len += strlen(frames[i]) + 1;
	if ((f = malloc(len)) == NULL)
		return -1;
	f[0] = '\0';
	for (int i = n - 1; i >= 0; i--) {
		strcat(f, frames[i]);
		if (i)
			strcat(f, ";");
	}
	rc = n ? bl_stack_add(s, f, count) : 0;
	free(f);
	return rc;
}

/* @st: machload's sampled user stacks. */
static int
bl_stack(void *arg, const struct mt_agg *agg, const struct mt_aggkey *keys,
	 uint32_t nkeys, const int64_t *vals)
{
	struct bl_sess *b = arg;

	if (nkeys != 1)
		return 0;
	mt_stack_frames(mt_consumer_symsrc(b->c), 1, keys[0].raw, keys[0].len,
			bl_frame, b);
	b->rc = fold_add(b->s, b->frames, b->nf, (uint64_t)vals[0]);
	while (b->nf > 0)
		free(b->frames[--b->nf]);
	return b->rc;
}

/* At the end: the counts and the stacks, from the aggregations. */
static int
bl_finish(void *arg, struct mt_consumer *c, int failed)
{
	struct bl_sess *b = arg;

	if (!failed && b->rc == 0 && (mt_consumer_agg_walk(c, "c", bl_count, b) != 0 ||
			   mt_consumer_agg_walk(c, "st", bl_stack, b) != 0)) {
		fprintf(stderr, "machtrace: baseline: %s\n", mt_consumer_error(c));
		b->rc = -1;
	}
	return 0;
}

/*
 * Runs the measurement session, in this process (a session of its own,
 * as top's), into run r of s; the guest console to t->con.
 */
static int
run_session(const struct bl_opts *o, struct bl_tmp *t, struct bl_set *s,
	    struct bl_run *r)
{
	static const char *const xopts[] = { "bufsize", "16m", "dynvarsize", "4m",
					     NULL };
	struct bl_sess b = { s, r, NULL, NULL, { NULL }, 0, 0 };
	char prog[sizeof(measure_prog) + 64], *con = getenv("MACHTRACE_CONSOLE_LOG");
	struct mt_cc_src src = { prog, "machtrace baseline", 0 };
	struct mt_session_machine m;
	struct mt_session_tool tool = {
		"baseline", &m, &src, 1, xopts, o->intr,
		{ &b, NULL, bl_start, bl_poll, bl_finish, 0 },
	};
	int rc;

	snprintf(prog, sizeof(prog), "%s", measure_prog);
	if (o->seconds > 0)
		snprintf(prog + strlen(prog), sizeof(prog) - strlen(prog),
			 "tick-%lds { exit(0); }\n", o->seconds);
	memset(&m, 0, sizeof(m));
	m.mach = o->mach;
	m.vm = o->vm;
	m.force = 1;
	if (o->vm)
		m.mach.workload = NULL;	/* the VM's, fixed at vm start */
	if (o->icount && getenv("MACHTRACE_ICOUNT") == NULL)
		setenv("MACHTRACE_ICOUNT", "shift=0", 1);
	con = con ? strdup(con) : NULL;
	setenv("MACHTRACE_CONSOLE_LOG", t->con, 1);
	fflush(stdout);
	rc = mt_session_machine_vm(&m, stderr) != 0 ? MT_EXIT_USAGE :
		mt_session_tool_run(&tool);
	if (con) {
		setenv("MACHTRACE_CONSOLE_LOG", con, 1);
		free(con);
	} else
		unsetenv("MACHTRACE_CONSOLE_LOG");
	mt_session_machine_free(&m);
	if (rc != 0 || b.rc != 0) {
		fprintf(stderr, "machtrace: baseline: the measurement session failed "
			"(exit %d)\n", rc);
		return -1;
	}
	if (o->vm) {
		if (!vm_console_ok(o->vm, t->con_off)) {
			fprintf(stderr, "machtrace: baseline: vm %s's console shows a failure "
				"during the measurement (machtrace vm console %s)\n", o->vm, o->vm);
			return -1;
		}
		return 0;
	}
	if (!workload_ok(t->con, o->seconds > 0)) {
		fprintf(stderr, "machtrace: baseline: the workload '%s' did not complete "
			"with every phase OK:\n", o->mach.workload);
		show_tail(t->con, "console");
		return -1;
	}
	return 0;
}

/* One run: a session into a new run of s. */
static int
measure_run(struct bl_opts *o, struct bl_set *s)
{
	struct bl_run *r = bl_run_add(s);
	struct bl_tmp t;
	int rc;

	if (r == NULL)
		return -1;
	snprintf(t.dir, sizeof(t.dir), "/tmp/mt-baseline.XXXXXX");
	if (mkdtemp(t.dir) == NULL) {
		fprintf(stderr, "machtrace: baseline: temporary directory: %s\n",
			strerror(errno));
		return -1;
	}
	snprintf(t.con, sizeof(t.con), "%s/con", t.dir);
	t.con_off = o->vm ? vm_console_size(o->vm) : 0;
	rc = run_session(o, &t, s, r);
	tmp_free(&t);
	return rc;
}

/* o->runs runs, one after the other, into s. */
static int
measure(struct bl_opts *o, struct bl_set *s)
{
	if (o->vm)
		fprintf(stderr, "machtrace: baseline: measuring vm %s, %ld runs of %ld s%s\n",
			o->vm, o->runs, o->seconds, o->icount ? " under -icount" : "");
	else
		fprintf(stderr, "machtrace: baseline: measuring '%s'%s%s, %ld runs%s%s\n",
			o->mach.workload, o->mach.kernel ? " on " : "",
			o->mach.kernel ? o->mach.kernel : "", o->runs,
			getenv("MACHTRACE_ICOUNT") || o->icount ? " under -icount" : "",
			o->seconds > 0 ? " of a fixed time" : "");
	for (long i = 0; i < o->runs; i++)
		if (measure_run(o, s) != 0) {
			fprintf(stderr, "machtrace: baseline: run %ld of %ld failed\n", i + 1,
				o->runs);
			return -1;
		}
	return 0;
}

/* The workload a baseline records: the words, or "vm:NAME" for --vm. */
static const char *
run_workload(const struct bl_opts *o, char *buf, size_t len)
{
	if (o->vm == NULL)
		return o->mach.workload;
	snprintf(buf, len, "vm:%s", o->vm);
	return buf;
}

/* The icount setting of this run: the VM's, or the environment's. */
static const char *
run_icount(const struct bl_opts *o, char *buf, size_t len)
{
	if (o->vm) {
		vm_icount(o->vm, buf, len);
		return buf;
	}
	return getenv("MACHTRACE_ICOUNT") ? getenv("MACHTRACE_ICOUNT") :
		o->icount ? "shift=0" : "";
}

/* s for this run: its workload, seconds, icount and kernel; a VM run
   with icount on measures in instructions. */
static void
run_set_init(struct bl_opts *o, struct bl_set *s)
{
	char wl[128], ic[64] = "";

	bl_set_init(s, run_workload(o, wl, sizeof(wl)), o->seconds,
		    run_icount(o, ic, sizeof(ic)));
	snprintf(s->kernel, sizeof(s->kernel), "%s", o->mach.kernel ? o->mach.kernel : "");
	if (o->vm && ic[0])
		o->icount = 1;
}

static int
do_save(struct bl_opts *o)
{
	struct bl_set s;
	char err[512];
	int rc;

	run_set_init(o, &s);
	if (measure(o, &s) != 0) {
		bl_set_free(&s);
		return MT_EXIT_ERROR;
	}
	rc = bl_write(&s, o->path, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "machtrace: baseline: %s\n", err);
	else
		printf("baseline %s saved: %zu runs, %zu metrics, %zu stacks, in %s\n",
		       o->name, s.nruns, s.run[0].nmetrics, s.nstacks, o->path);
	bl_set_free(&s);
	return rc ? MT_EXIT_ERROR : MT_EXIT_OK;
}

/* What compare measures: the baseline's kernel, workload, -d, icount
   and number of runs, unless the options say otherwise.  -1 after
   saying the baseline's kernel is gone. */
static int
compare_defaults(struct bl_opts *o, const struct bl_set *old)
{
	char err[4400];

	if (!o->vm && !o->mach.kernel && old->kernel[0] &&
	    mt_mopt_set(&o->mach, MT_MOPT_KERNEL, old->kernel, err, sizeof(err)) != 0) {
		fprintf(stderr, "machtrace: baseline: %s was measured on another kernel: "
			"%s\n", o->name, err);
		return -1;
	}
	if (!o->vm && strcmp(o->mach.kernel ? o->mach.kernel : "", old->kernel) != 0)
		fprintf(stderr, "machtrace: baseline: warning: %s was measured on kernel "
			"%s, this run boots %s\n", o->name, old->kernel[0] ? old->kernel :
			"(the stock one)", o->mach.kernel ? o->mach.kernel : "the stock one");
	if (o->vm && strncmp(old->workload, "vm:", 3) != 0)
		fprintf(stderr, "machtrace: baseline: warning: %s was a fresh boot of '%s'; "
			"this run attaches to vm %s, whose workload was fixed at vm start\n",
			o->name, old->workload, o->vm);
	if (!o->mach.workload && !o->vm)
		o->mach.workload = old->workload;
	if (o->seconds < 0)
		o->seconds = old->seconds > 0 ? old->seconds : o->vm ? 5 : 0;
	if (o->runs < 0)
		o->runs = old->nruns >= 2 ? (long)old->nruns : BL_RUNS;
	if (!o->vm && !o->icount && old->icount[0] && getenv("MACHTRACE_ICOUNT") == NULL)
		setenv("MACHTRACE_ICOUNT", old->icount, 1);
	return 0;
}

static int
do_compare(struct bl_opts *o, const char *dir)
{
	struct bl_set old, cur;
	char err[512], svg[4300];
	int rc, regressed;

	if (bl_read(&old, o->path, err, sizeof(err)) != 0) {
		fprintf(stderr, "machtrace: baseline: %s\n", err);
		return MT_EXIT_ERROR;
	}
	if (strncmp(old.workload, "vm:", 3) == 0 && o->vm == NULL) {
		fprintf(stderr, "machtrace: baseline: %s was measured on a running VM (%s): "
			"compare it with --vm NAME\n", o->name, old.workload + 3);
		bl_set_free(&old);
		return MT_EXIT_USAGE;
	}
	if (compare_defaults(o, &old) != 0) {
		bl_set_free(&old);
		return MT_EXIT_ERROR;
	}
	run_set_init(o, &cur);
	if (strcmp(old.icount, cur.icount) != 0)
		fprintf(stderr, "machtrace: baseline: warning: %s was measured with icount "
			"'%s', this run with '%s': latencies are not comparable\n", o->name,
			old.icount, cur.icount);
	if (measure(o, &cur) != 0) {
		bl_set_free(&old);
		bl_set_free(&cur);
		return MT_EXIT_ERROR;
	}
	regressed = bl_compare(&old, &cur, stdout);
	rc = regressed ? E_REGRESSED : MT_EXIT_OK;
	snprintf(svg, sizeof(svg), "%s/%s", dir, o->name);
	if (bl_flame_both(&old, &cur, svg, err, sizeof(err)) != 0)
		fprintf(stderr, "machtrace: baseline: flame graph: %s\n", err);
	else
		printf("differential flame graphs: %s.new.svg (widths: this run, red "
		       "grew), %s.old.svg (widths: the baseline, red shrank since)\n", svg, svg);
	bl_set_free(&old);
	bl_set_free(&cur);
	return rc;
}

/*
 * --vm: the VM runs (its workload and instruction counting were fixed at
 * vm start, so --workload and --icount cannot apply), the session
 * attaches for -d SECONDS (default 5: serve never ends).
 */
static int
bl_vm_check(const struct bl_opts *o)
{
	struct mt_vm vm;
	char err[512];

	if (o->mach.workload || o->mach.kernel || o->mach.mem_mb || o->mach.cpus) {
		const char *opt = o->mach.kernel ? "--kernel" : o->mach.mem_mb ? "--memory" :
			o->mach.cpus ? "--cpus" : "--workload";

		fprintf(stderr, "machtrace: baseline: %s boots a kernel; vm %s's workload was "
			"fixed at vm start, its kernel, memory and CPUs too (machtrace vm start "
			"%s)\n", opt, o->vm, opt);
		return -1;
	}
	if (o->icount) {
		fprintf(stderr, "machtrace: baseline: vm %s's instruction counting was fixed "
			"at vm start (MACHTRACE_ICOUNT=shift=0 machtrace vm start)\n", o->vm);
		return -1;
	}
	if (mt_vm_find(o->vm, &vm, err, sizeof(err)) != 0) {
		fprintf(stderr, "machtrace: baseline: vm: %s\n", err);
		return -1;
	}
	return 0;
}

int
tool_baseline_main(int argc, char **argv, struct mt_session_intr intr)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'D' },
		{ "icount", no_argument, NULL, 'i' },
		{ "vm", required_argument, NULL, 'v' },
		{ "runs", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bl_opts o = { .seconds = -1, .runs = -1, .intr = intr };
	char dir[4000], err[512];
	int c;

	if (mt_mopt_extract(&o.mach, &argc, argv, err, sizeof(err)) != 0)
		return bl_usage(err);
	if (o.mach.nmodules)
		return bl_usage("a baseline measures machload's phases: --module boots "
				"other modules instead");
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'D': o.dir = optarg; break;
		case 'i': o.icount = 1; break;
		case 'd':
			if (mt_session_whole_arg(optarg, &o.seconds) != 0)
				return bl_usage("-d wants whole seconds, 1 to 3600");
			break;
		case 'v': o.vm = optarg; break;
		case 'r':
			if (mt_session_whole_arg(optarg, &o.runs) != 0 || o.runs < 2 ||
			    o.runs > BL_MAX_RUNS)
				return bl_usage("--runs wants 2 to 100 runs (their spread is "
						"the noise floor)");
			break;
		case 'h': bl_usage(NULL); return MT_EXIT_OK;
		default: return bl_usage(NULL);
		}
	}
	/* GNU getopt moves the operands last: options go anywhere */
	if (optind + 2 != argc)
		return bl_usage(optind == argc ? "save or compare?" :
				optind + 1 == argc ? "no baseline NAME" : "too many operands");
	o.verb = argv[optind];
	o.name = argv[optind + 1];
	if (strcmp(o.verb, "save") && strcmp(o.verb, "compare"))
		return bl_usage("the verbs are save and compare");
	if (!name_ok(o.name))
		return bl_usage("a NAME is letters, digits, '-', '_' and '.', not "
				"starting with '.'");
	if (bl_dir(&o, dir, sizeof(dir)) != 0)
		return MT_EXIT_ERROR;
	snprintf(o.path, sizeof(o.path), "%s/%s.json", dir, o.name);
	if (o.vm && bl_vm_check(&o) != 0)
		return MT_EXIT_USAGE;
	if (strcmp(o.verb, "compare") == 0)
		return do_compare(&o, dir);
	if (o.mach.workload == NULL && o.vm == NULL)
		o.mach.workload = "rt=300 pages=16 rpcs=20";
	if (o.seconds < 0)
		o.seconds = o.vm ? 5 : 0;
	if (o.runs < 0)
		o.runs = BL_RUNS;
	if (mkdirs(dir) != 0) {
		fprintf(stderr, "machtrace: baseline: cannot create %s: %s\n", dir,
			strerror(errno));
		return MT_EXIT_ERROR;
	}
	return do_save(&o);
}
