/*
 * machtrace top [--vm N | --disk IMAGE [--snapshot] | machine options]
 *               [-d SECONDS] [-b] [-n COUNT] [--rules FILE] [-s FILE] [--explain]
 * machtrace health [--vm N | --disk IMAGE [--snapshot] | machine options]
 *                  [-d SECONDS] [--rules FILE]
 * (the machine options: --kernel, --module, --workload, --timeout,
 * --memory, machopt.h)
 *
 * One internal D program (the ipc, sched, vm, vminfo and fbt providers
 * into aggregations) runs as an ordinary session (session.c, with a
 * hook).  Every aggregation is keyed first by the interval's slot,
 * top_tv & 3, where top_tv counts the program's tick-N firings: in probe
 * context, so an event belongs to exactly the interval whose tick
 * followed it, whenever the host reads.  The tick clause records the
 * interval's number, its guest-clock length and the free page count;
 * when the consumer hands that record to our hook we read the
 * interval's slot through the consumer's aggregation API
 * (mt_consumer_agg_walk) and subtract what the same slot held four
 * intervals earlier (the runtime's values only grow).  That is exact as
 * long as we read a slot before the program comes back to it, three
 * intervals later; @top_now (the latest interval number) tells when we
 * did not, and the refresh says so.  The END clause records the same
 * three values: when the session ends before top stops it (the workload
 * ended, Ctrl-C), the interval it cut short is printed, marked partial.
 * docs/top.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include "tools/tools.h"
#include "machtrace/consumer.h"
#include "machtrace/esc.h"
#include "machtrace/hmap.h"
#include "machtrace/kimg.h"
#include "machtrace/mach.h"
#include "machtrace/msgids.h"
#include "machtrace/quantize.h"
#include "machtrace/runtime.h"
#include "machtrace/stats.h"
#include "machtrace/vm.h"

#define NSLOTS		4
#define MAXTASKS	256
#define MAXCPUS		64	/* CPUs with a line of their own */
#define MAXRPCS		256
#define WINDOW		30	/* intervals the anomaly window holds */

/* ---- the program ------------------------------------------------------- */

/*
 * %1$s: the tick's period ("1s"), %2$s: the free page expression.
 * Interrupt time: the handlers of the interrupts a QEMU PC with
 * machload takes (clock, serial, keyboard).  Lock waits: a complex lock
 * (lock_read/lock_write; simple locks are empty on a uniprocessor
 * kernel and spin on an SMP one, which lockstat's spin probes show)
 * whose caller went to sleep before getting it.  IPC latency:
 * a firing's timestamp is taken at its first use, so the send's is
 * taken last (after its other clauses) and the receive's first: top's
 * own clauses at the two probes stay outside the latency it measures.
 * A send's sender is named by pid and execname when it is the current
 * thread (inline in compiled code), by args[1] only on a fast handoff.
 */
static const char top_prog[] =
	"int top_tv;\n"
	"uint64_t top_t0;\n"
	"BEGIN { top_t0 = timestamp; }\n"
	"sched:::on-cpu { self->top_on = timestamp; "
	"@top_sys[top_tv & 3, \"ctxsw\"] = sum(1); "
	"@top_thr[top_tv & 3, pid, execname] = avg(curpsinfo->pr_nlwp); }\n"
	"sched:::off-cpu /self->top_on/ { @top_cpu[top_tv & 3, pid, execname, "
	"(curthread->state & 0x80) != 0, cpu] = sum(timestamp - self->top_on); "
	"self->top_on = 0; }\n"
	"sched:::enqueue { top_q[arg0] = timestamp; }\n"
	"sched:::on-cpu /top_q[(int64_t)curthread]/ { @top_rq[top_tv & 3] = "
	"llquantize(timestamp - top_q[(int64_t)curthread], 10, 3, 9, 20); "
	"top_q[(int64_t)curthread] = 0; }\n"
	"ipc:::send /arg1 == (int64_t)curthread/ { "
	"@top_tsnd[top_tv & 3, pid, execname] = count(); }\n"
	"ipc:::send /arg1 && arg1 != (int64_t)curthread/ { "
	"@top_tsnd[top_tv & 3, args[1]->pr_pid, mach_execname((void *)arg1)] = count(); }\n"
	"ipc:::send { @top_rpc[top_tv & 3, args[0]->msg_id] = count(); "
	"@top_sys[top_tv & 3, \"msgs\"] = sum(1); "
	"top_snd[args[0]->msg_addr] = timestamp; }\n"
	"ipc:::receive { this->now = timestamp; "
	"this->s = top_snd[args[0]->msg_addr]; }\n"
	"ipc:::receive /this->s/ { "
	"this->l = this->now - this->s; "
	"@top_rlat[top_tv & 3, args[0]->msg_id] = llquantize(this->l, 10, 3, 9, 20); "
	"top_snd[args[0]->msg_addr] = 0; }\n"
	"ipc:::receive { @top_trcv[top_tv & 3, pid, execname] = count(); }\n"
	"vm:::fault { @top_tflt[top_tv & 3, pid, execname] = count(); "
	"@top_sys[top_tv & 3, args[1] & 2 ? \"fault-write\" : args[1] & 4 ? "
	"\"fault-exec\" : args[1] ? \"fault-read\" : \"fault-wire\"] = sum(1); }\n"
	"vm:::fault-done { @top_ns[top_tv & 3, \"fault\"] = sum(args[1]); }\n"
	"vminfo:::zfod { @top_sys[top_tv & 3, \"zfod\"] = sum(arg0); }\n"
	"vminfo:::cow_fault { @top_sys[top_tv & 3, \"cow\"] = sum(arg0); }\n"
	"vminfo:::pgin { @top_sys[top_tv & 3, \"pgin\"] = sum(arg0); }\n"
	"vminfo:::pgout { @top_sys[top_tv & 3, \"pgout\"] = sum(arg0); }\n"
	"fbt::hardclock:entry, fbt::comintr:entry, fbt::kdintr:entry "
	"{ self->top_ih = timestamp; }\n"
	"fbt::hardclock:return, fbt::comintr:return, fbt::kdintr:return "
	"/self->top_ih/ { @top_ns[top_tv & 3, \"intr\"] = sum(timestamp - self->top_ih); "
	"@top_sys[top_tv & 3, \"intrs\"] = sum(1); self->top_ih = 0; }\n"
	"fbt::lock_read:entry, fbt::lock_write:entry { self->top_lk = timestamp; "
	"self->top_lks = 0; }\n"
	"sched:::sleep /self->top_lk/ { self->top_lks = 1; }\n"
	"fbt::lock_read:return, fbt::lock_write:return /self->top_lk && self->top_lks/ "
	"{ @top_ns[top_tv & 3, \"lockwait\"] = sum(timestamp - self->top_lk); "
	"@top_sys[top_tv & 3, \"lockwaits\"] = sum(1); }\n"
	"fbt::lock_read:return, fbt::lock_write:return { self->top_lk = 0; }\n"
	"tick-%1$s /self->top_on/ { @top_cpu[top_tv & 3, pid, execname, "
	"(curthread->state & 0x80) != 0, cpu] = sum(timestamp - self->top_on); "
	"self->top_on = timestamp; }\n"
	"tick-%1$s { trace(top_tv); trace(timestamp - top_t0); trace(%2$s); "
	"top_t0 = timestamp; top_tv++; @top_now = max(top_tv); }\n"
	"END { trace(top_tv); trace(timestamp - top_t0); trace(%2$s); }\n";

/* ---- one interval's figures ------------------------------------------- */

struct task {
	int64_t pid;
	char name[20];
	double cpu_ns, snd, rcv, flt, thr_sum, thr_n;
};

struct rpc {
	char name[96];
	double count, lat_n, p50, p99;
};

/* System figures of an interval, by name: what rules and health read. */
enum {
	M_CPU, M_CTXSW, M_MSGS, M_FAULTS, M_FAULT_PCT, M_ZFOD, M_COW, M_PGIN,
	M_PGOUT, M_INTR_PCT, M_RQ_P50, M_RQ_P99, M_IPC_P50, M_IPC_P99,
	M_LOCKWAITS, M_LOCK_PCT, M_FILL, M_FREE, M_DROPS, M_INSNS, M_PROBE_PCT,
	M_FIRINGS, M_NMETRICS
};

static const struct metric_def {
	const char *name, *unit;
	int trend;		/* in the anomaly window */
} metric_defs[M_NMETRICS] = {
	[M_CPU] = { "cpu_pct", "%", 1 },
	[M_CTXSW] = { "ctxsw_per_s", "/s", 1 },
	[M_MSGS] = { "msgs_per_s", "/s", 1 },
	[M_FAULTS] = { "faults_per_s", "/s", 1 },
	[M_FAULT_PCT] = { "fault_time_pct", "%", 1 },
	[M_ZFOD] = { "zfod_per_s", "/s", 0 },
	[M_COW] = { "cow_per_s", "/s", 0 },
	[M_PGIN] = { "pgin_per_s", "/s", 0 },
	[M_PGOUT] = { "pgout_per_s", "/s", 0 },
	[M_INTR_PCT] = { "intr_pct", "%", 1 },
	[M_RQ_P50] = { "runq_p50_us", "us", 0 },
	[M_RQ_P99] = { "runq_p99_us", "us", 1 },
	[M_IPC_P50] = { "ipc_p50_us", "us", 0 },
	[M_IPC_P99] = { "ipc_p99_us", "us", 1 },
	[M_LOCKWAITS] = { "lock_waits_per_s", "/s", 0 },
	[M_LOCK_PCT] = { "lock_wait_pct", "%", 0 },
	[M_FILL] = { "page_fill_kib_per_s", "KiB/s", 0 },
	[M_FREE] = { "free_pages", "", 0 },
	[M_DROPS] = { "drops", "", 0 },
	[M_INSNS] = { "insns_per_s", "/s", 0 },
	[M_PROBE_PCT] = { "probe_pct", "%", 0 },
	[M_FIRINGS] = { "firings_per_s", "/s", 0 },
};

struct interval {
	int64_t tv;
	double dt_ns;
	int late;		/* read after the slot was reused */
	struct task tasks[MAXTASKS];
	size_t ntasks;
	struct rpc rpcs[MAXRPCS];
	size_t nrpcs;
	double sys[32];		/* by sys_names index */
	double cpu_busy[MAXCPUS]; /* ns not idle, per CPU (top_cpu's cpu) */
	double ns_intr, ns_fault, ns_lock;
	double probe_ns, fires;	/* the tracer's own: time in probe context */
	double m[M_NMETRICS];	/* NaN: unavailable */
};

static const char *const sys_names[] = {
	"ctxsw", "msgs", "fault-read", "fault-write", "fault-exec", "fault-wire",
	"zfod", "cow", "pgin", "pgout", "intrs", "lockwaits", NULL
};
enum { S_CTXSW, S_MSGS, S_FREAD, S_FWRITE, S_FEXEC, S_FWIRE, S_ZFOD, S_COW,
       S_PGIN, S_PGOUT, S_INTRS, S_LOCKWAITS };

/* ---- earlier raw values, per aggregation entry ------------------------ */

struct prev {
	char *key;
	int64_t *vals;
	uint32_t nvals;
};


struct top {
	/* options */
	const char *vm, *rules_file, *extra_file;
	long seconds, count;
	int batch, health, explain, show_program;
	/* the session */
	struct mt_session_intr intr;
	struct mt_session_machine m;
	char *texts[2];			/* the programs' texts */
	struct mt_msgids *msgids;	/* names of message ids, or NULL */
	const struct mt_prog *prog;
	struct mt_consumer *c;
	struct mt_cb *cb;
	uint32_t tick_clause, end_clause;
	const struct mt_rec *tick_recs[3];
	int icount_shift;	/* -1: no instruction counting */
	char icount_text[64];
	/* state across intervals */
	struct mt_hmap prev;		/* struct prev by key and nvals */
	uint64_t drops_seen, fires_seen, probe_ns_seen;
	long refreshes;
	int stop, partial;
	struct interval iv;
	double win[M_NMETRICS][WINDOW];
	size_t nwin;
	struct mt_ewma ewma[M_NMETRICS];
	struct mt_rule *rules;
	size_t nrules;
	int *streak;
	/* health: the run's deductions, by cause (summed over intervals) */
	double total_points[16];
	char total_why[16][160];	/* the cause */
	char total_last[16][400];	/* its latest reason */
	long total_n[16];
	size_t ntotal;
	double sum_m[M_NMETRICS];
	long n_m[M_NMETRICS];
	double last_score;
	/* the terminal, interactive mode */
	int tty;
	struct termios saved;
};

struct prev_key {
	const char *key;
	uint32_t nvals;
};

static int
prev_eq(const void *ctx, uintptr_t val)
{
	const struct prev_key *k = ctx;
	const struct prev *p = (const struct prev *)val;

	return strcmp(p->key, k->key) == 0 && p->nvals == k->nvals;
}

/* The values of key when last read (zeros the first time), then key's
   values become vals.  Returns the previous values (static storage of
   the entry) or NULL when memory runs out. */
static const int64_t *
prev_swap(struct top *tp, const char *key, const int64_t *vals, uint32_t nvals,
	  int64_t *out)
{
	struct prev_key k = { key, nvals };
	uint64_t h = mt_hash_str(key);
	struct prev *p = (struct prev *)mt_hmap_find(&tp->prev, h, prev_eq, &k);

	if (p == NULL) {
		if ((p = calloc(1, sizeof(*p))) == NULL)
			return NULL;
		p->key = strdup(key);
		p->vals = calloc(nvals, sizeof(int64_t));
		if (p->key == NULL || p->vals == NULL ||
		    mt_hmap_put(&tp->prev, h, (uintptr_t)p) != 0) {
			free(p->key);
			free(p->vals);
			free(p);
			return NULL;
		}
		p->nvals = nvals;
	}
	memcpy(out, p->vals, nvals * sizeof(int64_t));
	memcpy(p->vals, vals, nvals * sizeof(int64_t));
	return out;
}

static void
prev_free(struct top *tp)
{
	for (size_t i = 0; i < tp->prev.nslot; i++) {
		struct prev *p = (struct prev *)tp->prev.slot[i].val;

		if (p) {
			free(p->key);
			free(p->vals);
			free(p);
		}
	}
	mt_hmap_free(&tp->prev);
}

/* ---- distributions ----------------------------------------------------- */

/* The smallest v in [0, 2^50] whose bin is at least b (2^50 when none). */
static double
ll_lower(const struct mt_agg *a, int64_t b)
{
	int64_t v = mt_agg_bucket_min(a, (uint32_t)b), lim = (int64_t)1 << 50;

	return (double)(v < 0 ? 0 : v > lim ? lim : v);
}

/*
 * The q-quantile of a llquantize() distribution (counts per bin): the
 * bin holding rank q*N, and a linear interpolation between that bin's
 * lower and upper bounds by the rank's place among the bin's counts (an
 * overflow bin gives its lower bound).  The error is below the bin's
 * width: 0.5 * 10^k ns in [10^k, 10^(k+1)) with 20 steps per decade.
 */
static double
ll_quantile(const struct mt_agg *a, const double *counts, double q)
{
	double n = 0, cum = 0, rank;

	for (uint32_t b = 0; b < a->nvals; b++)
		n += counts[b];
	if (n <= 0)
		return NAN;
	rank = q * n;
	for (uint32_t b = 0; b < a->nvals; b++) {
		double lo, hi;

		if (counts[b] <= 0 || cum + counts[b] < rank) {
			cum += counts[b];
			continue;
		}
		lo = ll_lower(a, b);
		hi = b + 1 < a->nvals ? ll_lower(a, b + 1) : lo;
		if (hi < lo)
			hi = lo;
		return lo + (hi - lo) * (rank - cum) / counts[b];
	}
	return NAN;
}

/* ---- reading one interval --------------------------------------------- */

struct walk {
	struct top *tp;
	const char *agg;
	int64_t slot;
	double *dist;		/* the ipc/runq distribution being summed */
	const struct mt_agg *dist_agg;
};

static struct task *
task_of(struct interval *iv, int64_t pid, const char *name, uint32_t len)
{
	size_t n = len < sizeof(iv->tasks[0].name) - 1 ? len : sizeof(iv->tasks[0].name) - 1;

	for (size_t i = 0; i < iv->ntasks; i++)
		if (iv->tasks[i].pid == pid && strncmp(iv->tasks[i].name, name, n) == 0)
			return &iv->tasks[i];
	if (iv->ntasks == MAXTASKS)
		return NULL;
	memset(&iv->tasks[iv->ntasks], 0, sizeof(iv->tasks[0]));
	iv->tasks[iv->ntasks].pid = pid;
	snprintf(iv->tasks[iv->ntasks].name, sizeof(iv->tasks[0].name), "%.*s",
		 (int)strnlen(name, n), name);
	return &iv->tasks[iv->ntasks++];
}

/* Messages are counted by id in probe context (an int key costs less
   than mach_msgname()'s string) and named here, by the same msgids. */
static struct rpc *
rpc_of(struct top *tp, int64_t id)
{
	struct interval *iv = &tp->iv;
	struct mt_msgid_name mn;
	char nm[96];

	if (tp->msgids && mt_msgids_lookup(tp->msgids, (long)id, &mn) >= 0)
		snprintf(nm, sizeof(nm), "%s", mn.routine);
	else
		snprintf(nm, sizeof(nm), "%lld", (long long)id);
	for (size_t i = 0; i < iv->nrpcs; i++)
		if (strcmp(iv->rpcs[i].name, nm) == 0)
			return &iv->rpcs[i];
	if (iv->nrpcs == MAXRPCS)
		return NULL;
	memset(&iv->rpcs[iv->nrpcs], 0, sizeof(iv->rpcs[0]));
	iv->rpcs[iv->nrpcs].p50 = iv->rpcs[iv->nrpcs].p99 = NAN;
	snprintf(iv->rpcs[iv->nrpcs].name, sizeof(iv->rpcs[0].name), "%s", nm);
	return &iv->rpcs[iv->nrpcs++];
}

/* The entry's key as text, for prev_swap. */
static void
key_text(const char *agg, const struct mt_aggkey *k, uint32_t nk, char *buf,
	 size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "%s", agg);

	for (uint32_t i = 0; i < nk && o < len; i++)
		o += (size_t)(k[i].s ? snprintf(buf + o, len - o, "|%.*s",
						(int)strnlen(k[i].s, k[i].len), k[i].s) :
			      snprintf(buf + o, len - o, "|%lld", (long long)k[i].i));
}

static int
on_entry(void *arg, const struct mt_agg *a, const struct mt_aggkey *k,
	 uint32_t nk, const int64_t *vals)
{
	struct walk *w = arg;
	struct interval *iv = &w->tp->iv;
	int64_t old[256];
	double d[256];
	char key[512];
	int any = 0;

	if (nk < 1 || k[0].i != w->slot || a->nvals > 256)
		return 0;
	key_text(w->agg, k, nk, key, sizeof(key));
	if (prev_swap(w->tp, key, vals, a->nvals, old) == NULL)
		return 0;
	for (uint32_t i = 0; i < a->nvals; i++)
		any |= (d[i] = (double)(vals[i] - old[i])) != 0;
	if (!any)
		return 0;
	if (strcmp(w->agg, "top_cpu") == 0 && nk == 5 && k[2].s) {
		struct task *t = task_of(iv, k[1].i, k[2].s, k[2].len);

		/* the idle thread's time is not the task's, nor its CPU's */
		if (t && !k[3].i)
			t->cpu_ns += d[0];
		if (!k[3].i && k[4].i >= 0 && k[4].i < MAXCPUS)
			iv->cpu_busy[k[4].i] += d[0];
	} else if (nk == 3 && k[2].s && strncmp(w->agg, "top_t", 5) == 0) {
		struct task *t = task_of(iv, k[1].i, k[2].s, k[2].len);

		if (t == NULL)
			return 0;
		if (strcmp(w->agg, "top_tsnd") == 0)
			t->snd += d[0];
		else if (strcmp(w->agg, "top_trcv") == 0)
			t->rcv += d[0];
		else if (strcmp(w->agg, "top_tflt") == 0)
			t->flt += d[0];
		else if (strcmp(w->agg, "top_thr") == 0) {
			t->thr_n += d[0];
			t->thr_sum += d[1];
		}
	} else if (strcmp(w->agg, "top_rpc") == 0 && nk == 2) {
		struct rpc *r = rpc_of(w->tp, k[1].i);

		if (r)
			r->count += d[0];
	} else if (strcmp(w->agg, "top_rlat") == 0 && nk == 2) {
		struct rpc *r = rpc_of(w->tp, k[1].i);

		/* every routine's, summed: the interval's IPC latency */
		for (uint32_t i = 0; w->dist && i < a->nvals; i++)
			w->dist[i] += d[i];
		w->dist_agg = a;
		if (r) {
			for (uint32_t i = 0; i < a->nvals; i++)
				r->lat_n += d[i];
			r->p50 = ll_quantile(a, d, 0.5);
			r->p99 = ll_quantile(a, d, 0.99);
		}
	} else if (strcmp(w->agg, "top_sys") == 0 && nk == 2 && k[1].s) {
		for (int i = 0; sys_names[i]; i++)
			if (strncmp(sys_names[i], k[1].s, k[1].len) == 0 &&
			    strlen(sys_names[i]) <= k[1].len &&
			    k[1].s[strlen(sys_names[i])] == '\0')
				iv->sys[i] += d[0];
	} else if (strcmp(w->agg, "top_ns") == 0 && nk == 2 && k[1].s) {
		if (strcmp(k[1].s, "intr") == 0)
			iv->ns_intr += d[0];
		else if (strcmp(k[1].s, "fault") == 0)
			iv->ns_fault += d[0];
		else if (strcmp(k[1].s, "lockwait") == 0)
			iv->ns_lock += d[0];
	} else if (w->dist && nk == 1) {
		for (uint32_t i = 0; i < a->nvals; i++)
			w->dist[i] += d[i];
		w->dist_agg = a;
	}
	return 0;
}

static int
walk_agg(struct top *tp, const char *name, int64_t slot, double *dist,
	 const struct mt_agg **dist_agg)
{
	struct walk w = { tp, name, slot, dist, NULL };

	if (mt_consumer_agg_walk(tp->c, name, on_entry, &w) != 0) {
		fprintf(stderr, "machtrace: top: %s\n", mt_consumer_error(tp->c));
		return -1;
	}
	if (dist_agg)
		*dist_agg = w.dist_agg;
	return 0;
}

static int
latest_cb(void *arg, const struct mt_agg *a, const struct mt_aggkey *k,
	  uint32_t nk, const int64_t *vals)
{
	*(int64_t *)arg = vals[0];
	return 1;
}

/* Records and firings the runtime could not keep, since tracing began. */
static uint64_t
drops_now(const struct top *tp)
{
	const struct mt_cb *cb = tp->cb;
	const struct mt_cpubuf *b;
	const struct mt_cpustat *s;
	uint64_t n = 0;

	if (cb == NULL || cb->cpubuf_off == 0 || cb->cpustat_off == 0)
		return 0;
	b = (const void *)((const char *)cb + cb->cpubuf_off);
	s = (const void *)((const char *)cb + cb->cpustat_off);
	for (uint32_t i = 0; i < cb->ncpus; i++)
		n += __atomic_load_n(&b[i].drops, __ATOMIC_ACQUIRE) +
		     __atomic_load_n(&s[i].aggdrops, __ATOMIC_ACQUIRE) +
		     __atomic_load_n(&s[i].dynvar_drops, __ATOMIC_ACQUIRE) +
		     __atomic_load_n(&s[i].nested, __ATOMIC_ACQUIRE);
	return n;
}

static int
cmp_task(const void *a, const void *b)
{
	const struct task *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int
cmp_rpc(const void *a, const void *b)
{
	const struct rpc *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Every figure of interval tv (slot tv & 3), from the aggregations. */
static int
read_interval(struct top *tp, int64_t tv, double dt_ns, double free_pages)
{
	static const char *const plain[] = { "top_cpu", "top_tsnd", "top_trcv",
		"top_tflt", "top_thr", "top_rpc", "top_sys", "top_ns", NULL };
	struct interval *iv = &tp->iv;
	double rq[256], il[256], s, busy = 0;
	const struct mt_agg *rqa = NULL, *ila = NULL;
	int64_t latest = 0;
	uint64_t drops, fires, pns;

	memset(iv, 0, sizeof(*iv));
	iv->tv = tv;
	iv->dt_ns = dt_ns;
	memset(rq, 0, sizeof(rq));
	memset(il, 0, sizeof(il));
	for (int i = 0; plain[i]; i++)
		if (walk_agg(tp, plain[i], tv & 3, NULL, NULL) != 0)
			return -1;
	if (walk_agg(tp, "top_rq", tv & 3, rq, &rqa) != 0 ||
	    walk_agg(tp, "top_rlat", tv & 3, il, &ila) != 0)
		return -1;
	if (mt_consumer_agg_walk(tp->c, "top_now", latest_cb, &latest) == 0 &&
	    latest >= tv + NSLOTS)
		iv->late = 1;
	qsort(iv->tasks, iv->ntasks, sizeof(iv->tasks[0]), cmp_task);
	qsort(iv->rpcs, iv->nrpcs, sizeof(iv->rpcs[0]), cmp_rpc);
	s = dt_ns > 0 ? dt_ns / 1e9 : NAN;
	for (size_t i = 0; i < iv->ntasks; i++)
		busy += iv->tasks[i].cpu_ns;
	iv->m[M_CPU] = dt_ns > 0 ? 100 * busy / dt_ns : NAN;
	iv->m[M_CTXSW] = iv->sys[S_CTXSW] / s;
	iv->m[M_MSGS] = iv->sys[S_MSGS] / s;
	iv->m[M_FAULTS] = (iv->sys[S_FREAD] + iv->sys[S_FWRITE] + iv->sys[S_FEXEC] +
			   iv->sys[S_FWIRE]) / s;
	iv->m[M_FAULT_PCT] = 100 * iv->ns_fault / dt_ns;
	iv->m[M_ZFOD] = iv->sys[S_ZFOD] / s;
	iv->m[M_COW] = iv->sys[S_COW] / s;
	iv->m[M_PGIN] = iv->sys[S_PGIN] / s;
	iv->m[M_PGOUT] = iv->sys[S_PGOUT] / s;
	iv->m[M_INTR_PCT] = 100 * iv->ns_intr / dt_ns;
	iv->m[M_RQ_P50] = rqa ? ll_quantile(rqa, rq, 0.5) / 1e3 : NAN;
	iv->m[M_RQ_P99] = rqa ? ll_quantile(rqa, rq, 0.99) / 1e3 : NAN;
	iv->m[M_IPC_P50] = ila ? ll_quantile(ila, il, 0.5) / 1e3 : NAN;
	iv->m[M_IPC_P99] = ila ? ll_quantile(ila, il, 0.99) / 1e3 : NAN;
	iv->m[M_LOCKWAITS] = iv->sys[S_LOCKWAITS] / s;
	iv->m[M_LOCK_PCT] = 100 * iv->ns_lock / dt_ns;
	iv->m[M_FILL] = (iv->sys[S_ZFOD] + iv->sys[S_COW]) * 4 / s;
	iv->m[M_FREE] = free_pages >= 0 ? free_pages : NAN;
	drops = drops_now(tp);
	iv->m[M_DROPS] = (double)(drops - tp->drops_seen);
	tp->drops_seen = drops;
	iv->m[M_INSNS] = tp->icount_shift >= 0 ?
		ldexp(dt_ns, -tp->icount_shift) / s : NAN;
	/* read as top handles the tick: an interval's share is approximate
	   by that delay */
	mt_session_probe_cost(tp->cb, &fires, &pns);
	iv->fires = (double)(fires - tp->fires_seen);
	iv->probe_ns = (double)(pns - tp->probe_ns_seen);
	tp->fires_seen = fires;
	tp->probe_ns_seen = pns;
	iv->m[M_PROBE_PCT] = 100 * iv->probe_ns / dt_ns;
	iv->m[M_FIRINGS] = iv->fires / s;
	return 0;
}

/* ---- health ------------------------------------------------------------ */

struct deduction {
	const char *cause;
	double points;
	char why[400];
};

static void
deduct(struct deduction *d, size_t *n, const char *cause, double pts,
       const char *fmt, double v)
{
	if (!(pts > 0) || *n >= 32)
		return;
	d[*n].cause = cause;
	d[*n].points = pts;
	snprintf(d[*n].why, sizeof(d[*n].why), fmt, v);
	(*n)++;
}

/*
 * The deductions of one interval (docs/top.md, Health):
 *   VM pressure       time in page faults: 0 at 2%, 40 points at 20%
 *   scheduling        run-queue p99: 0 at 10 ms, 20 points at 100 ms
 *   IPC latency       message p99: 0 at 10 ms, 20 points at 100 ms
 *   interrupts        interrupt time: 0 at 10%, 15 points at 50%
 *   lock contention   lock wait time: 0 at 1%, 15 points at 20%
 *   drops             10 points when any record or firing was lost
 *   late              10 points: the interval was read too late
 *   anomaly           3 points per metric whose robust z-score against
 *                     the window is beyond 3.5 (at most 15)
 *   rules             10 points per rule that fires
 */
static size_t
interval_deductions(struct top *tp, struct deduction *d)
{
	const struct interval *iv = &tp->iv;
	size_t n = 0;
	double anom = 0;

	deduct(d, &n, "VM pressure", mt_ramp(iv->m[M_FAULT_PCT], 2, 20, 40),
	       "%.1f%% of the time in page faults", iv->m[M_FAULT_PCT]);
	deduct(d, &n, "scheduling latency", mt_ramp(iv->m[M_RQ_P99], 10e3, 100e3, 20),
	       "run-queue p99 %.0f us", iv->m[M_RQ_P99]);
	deduct(d, &n, "IPC latency", mt_ramp(iv->m[M_IPC_P99], 10e3, 100e3, 20),
	       "message p99 %.0f us", iv->m[M_IPC_P99]);
	deduct(d, &n, "interrupt overhead", mt_ramp(iv->m[M_INTR_PCT], 10, 50, 15),
	       "%.1f%% of the time in interrupt handlers", iv->m[M_INTR_PCT]);
	deduct(d, &n, "lock contention", mt_ramp(iv->m[M_LOCK_PCT], 1, 20, 15),
	       "%.1f%% of the time waiting for complex locks", iv->m[M_LOCK_PCT]);
	deduct(d, &n, "drops", iv->m[M_DROPS] > 0 ? 10 : 0,
	       "%.0f records or firings lost", iv->m[M_DROPS]);
	deduct(d, &n, "late", iv->late ? 10 : 0,
	       "read after its slot was reused (%.0f or more intervals late)", 3);
	for (int m = 0; m < M_NMETRICS && tp->nwin >= MT_WINDOW_MIN; m++) {
		double w[WINDOW], z;
		size_t k = tp->nwin < WINDOW ? tp->nwin : WINDOW;

		if (!metric_defs[m].trend || isnan(iv->m[m]))
			continue;
		for (size_t i = 0; i < k; i++)
			w[i] = tp->win[m][i];
		z = mt_window_z(w, k, iv->m[m]);
		if (fabs(z) > 3.5 && anom < 15) {
			char why[64];

			snprintf(why, sizeof(why), "%s z=%%.1f", metric_defs[m].name);
			deduct(d, &n, "anomaly", 3, why, z);
			anom += 3;
		}
	}
	for (size_t r = 0; r < tp->nrules; r++) {
		const struct mt_rule *ru = &tp->rules[r];
		double v = NAN;

		for (int m = 0; m < M_NMETRICS; m++)
			if (strcmp(metric_defs[m].name, ru->metric) == 0)
				v = iv->m[m];
		tp->streak[r] = mt_rule_holds(ru, v) ? tp->streak[r] + 1 : 0;
		if (tp->streak[r] >= ru->nfor && n < 32) {
			d[n].cause = "rule";
			d[n].points = 10;
			snprintf(d[n].why, sizeof(d[n].why), "line %d: %s (%s = %.4g)",
				 ru->line, ru->message, ru->metric, v);
			n++;
		}
	}
	return n;
}

static double
score_of(const struct deduction *d, size_t n)
{
	double pts[32];

	for (size_t i = 0; i < n; i++)
		pts[i] = d[i].points;
	return mt_health_score(pts, n);
}

/* The interval joins the window and the EWMAs after it was judged. */
static void
remember(struct top *tp)
{
	size_t slot = tp->nwin % WINDOW;

	for (int m = 0; m < M_NMETRICS; m++) {
		double v = tp->iv.m[m];

		tp->win[m][slot] = v;
		if (!isnan(v)) {
			mt_ewma_add(&tp->ewma[m], v);
			tp->sum_m[m] += v;
			tp->n_m[m]++;
		}
	}
	tp->nwin++;
}

/* health: each cause's points summed over the run's intervals. */
static void
total_add(struct top *tp, const struct deduction *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < tp->ntotal; j++)
			if (strcmp(tp->total_why[j], d[i].cause) == 0)
				break;
		if (j == tp->ntotal) {
			if (j == 16)
				continue;
			snprintf(tp->total_why[j], sizeof(tp->total_why[j]), "%s", d[i].cause);
			tp->total_points[j] = 0;
			tp->total_n[j] = 0;
			tp->ntotal++;
		}
		tp->total_points[j] += d[i].points;
		tp->total_n[j]++;
		snprintf(tp->total_last[j], sizeof(tp->total_last[j]), "%s", d[i].why);
	}
}

/* ---- printing ---------------------------------------------------------- */

static void
fmt_num(char *buf, size_t len, double v, const char *unit)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (strcmp(unit, "us") == 0)
		snprintf(buf, len, v >= 10000 ? "%.0fms" : "%.0fus",
			 v >= 10000 ? v / 1e3 : v);
	else if (fabs(v) >= 1e7)
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, v == floor(v) ? "%.0f" : "%.1f", v);
}

/* A line per CPU, as top(1)'s: the share of the interval it ran threads
   other than its idle thread. */
static void
print_cpus(const struct top *tp)
{
	const struct interval *iv = &tp->iv;
	uint32_t n = tp->cb && tp->cb->ncpus ? tp->cb->ncpus : 1;

	for (uint32_t i = 0; i < n && i < MAXCPUS; i++)
		printf("CPU%-5u busy %.1f%%\n", i,
		       iv->dt_ns > 0 ? 100 * iv->cpu_busy[i] / iv->dt_ns : NAN);
}

static void
print_refresh(struct top *tp, const struct deduction *d, size_t nd, double score)
{
	const struct interval *iv = &tp->iv;
	double s = iv->dt_ns / 1e9;
	char a[32], b[32], c[32], e[32], esc[4 * 400 + 1];

	if (!tp->batch)
		fputs("\033[H\033[2J", stdout);
	printf("machtrace top: refresh %ld, interval %lld, %.3f s of guest time%s%s%s%s\n",
	       tp->refreshes, (long long)iv->tv + 1, s, tp->vm ? ", vm " : "",
	       tp->vm ? tp->vm : "", tp->partial ? " (partial: the session ended)" : "",
	       iv->late ? " (LATE: figures may include the next use of this slot)" : "");
	printf("TRACER   own cost %.3f ms in probe context, %.2f%% of the interval; "
	       "%.0f firings (%.0f/s): part of every time below\n", iv->probe_ns / 1e6,
	       iv->m[M_PROBE_PCT], iv->fires, iv->m[M_FIRINGS]);
	printf("SYSTEM   cpu %.1f%%  ctxsw %.0f (%.0f/s)  msgs %.0f (%.0f/s)  "
	       "intr %.2f%%  drops %.0f\n", iv->m[M_CPU], iv->sys[S_CTXSW],
	       iv->m[M_CTXSW], iv->sys[S_MSGS], iv->m[M_MSGS], iv->m[M_INTR_PCT],
	       iv->m[M_DROPS]);
	print_cpus(tp);
	printf("FAULTS   %.0f/s: read %.0f write %.0f exec %.0f wire %.0f; zfod %.0f "
	       "cow %.0f pgin %.0f pgout %.0f; %.2f%% of the time\n", iv->m[M_FAULTS],
	       iv->sys[S_FREAD], iv->sys[S_FWRITE], iv->sys[S_FEXEC], iv->sys[S_FWIRE],
	       iv->sys[S_ZFOD], iv->sys[S_COW], iv->sys[S_PGIN], iv->sys[S_PGOUT],
	       iv->m[M_FAULT_PCT]);
	fmt_num(a, sizeof a, iv->m[M_RQ_P50], "us");
	fmt_num(b, sizeof b, iv->m[M_RQ_P99], "us");
	fmt_num(c, sizeof c, iv->m[M_FREE], "");
	printf("SCHED    run-queue latency p50 %s p99 %s  free pages %s\n", a, b, c);
	fmt_num(a, sizeof a, iv->m[M_IPC_P50], "us");
	fmt_num(b, sizeof b, iv->m[M_IPC_P99], "us");
	fmt_num(c, sizeof c, iv->m[M_FILL], "");
	if (tp->icount_shift >= 0) {
		fmt_num(e, sizeof e, iv->m[M_INSNS], "");
		strcat(e, "/s");
	} else {
		snprintf(e, sizeof e, "unavailable (no -icount)");
	}
	printf("COUNTERS ipc-latency p50 %s p99 %s | sched-latency above | vm-pressure "
	       "above | interrupt-overhead %.2f%% | lock-contention %.0f waits %.2f%% | "
	       "page-fill %s KiB/s | instructions %s | cache-misses, "
	       "branch-mispredicts, tlb-misses: unavailable (TCG)\n", a, b,
	       iv->m[M_INTR_PCT], iv->sys[S_LOCKWAITS], iv->m[M_LOCK_PCT], c, e);
	printf("HEALTH   %.0f/100", score);
	for (size_t i = 0; i < nd; i++)
		printf("%s -%.0f %s (%s)", i ? "," : "", d[i].points, d[i].cause,
		       mt_esc_str(esc, sizeof esc, d[i].why));
	printf("\n\n");
	printf("%6s %-16s %6s %7s %8s %7s %8s %6s %7s %5s\n", "PID", "COMMAND", "CPU%",
	       "SENT", "SENT/s", "RECV", "RECV/s", "FLT", "FLT/s", "THR");
	for (size_t i = 0; i < iv->ntasks; i++) {
		const struct task *t = &iv->tasks[i];

		printf("%6lld %-16s %6.1f %7.0f %8.1f %7.0f %8.1f %6.0f %7.1f %5.1f\n",
		       (long long)t->pid, mt_esc_str(esc, sizeof esc, t->name), 100 * t->cpu_ns / iv->dt_ns, t->snd,
		       t->snd / s, t->rcv, t->rcv / s, t->flt, t->flt / s,
		       t->thr_n > 0 ? t->thr_sum / t->thr_n : 0.0);
	}
	printf("\n%-32s %7s %9s %8s %8s\n", "ROUTINE", "SENT", "SENT/s", "P50", "P99");
	for (size_t i = 0; i < iv->nrpcs; i++) {
		const struct rpc *r = &iv->rpcs[i];

		if (r->count == 0)
			continue;
		fmt_num(a, sizeof a, r->p50 / 1e3, "us");
		fmt_num(b, sizeof b, r->p99 / 1e3, "us");
		printf("%-32s %7.0f %9.1f %8s %8s\n", mt_esc_str(esc, sizeof esc, r->name),
		       r->count, r->count / s, a, b);
	}
	printf("\n");
	fflush(stdout);
}

static void
print_health(struct top *tp)
{
	double pts[16], score;
	long n = tp->refreshes > 0 ? tp->refreshes : 1;
	char esc[4 * 400 + 1];

	/* the causes by what they cost, largest first */
	for (size_t i = 1; i < tp->ntotal; i++)
		for (size_t j = i; j > 0 && tp->total_points[j] > tp->total_points[j - 1]; j--) {
			double p = tp->total_points[j];
			long c = tp->total_n[j];
			char w[160], l[400];

			memcpy(w, tp->total_why[j], sizeof(w));
			memcpy(l, tp->total_last[j], sizeof(l));
			tp->total_points[j] = tp->total_points[j - 1];
			tp->total_n[j] = tp->total_n[j - 1];
			memcpy(tp->total_why[j], tp->total_why[j - 1], sizeof(w));
			memcpy(tp->total_last[j], tp->total_last[j - 1], sizeof(l));
			tp->total_points[j - 1] = p;
			tp->total_n[j - 1] = c;
			memcpy(tp->total_why[j - 1], w, sizeof(w));
			memcpy(tp->total_last[j - 1], l, sizeof(l));
		}
	for (size_t i = 0; i < tp->ntotal; i++)
		pts[i] = tp->total_points[i] / n;
	score = mt_health_score(pts, tp->ntotal);
	printf("machtrace health: %.0f/100 over %ld interval%s%s%s\n", score,
	       tp->refreshes, tp->refreshes == 1 ? "" : "s", tp->vm ? ", vm " : "",
	       tp->vm ? tp->vm : "");
	for (size_t i = 0; i < tp->ntotal; i++)
		printf("  -%.1f %s (in %ld of %ld intervals; last: %s)\n", pts[i],
		       tp->total_why[i], tp->total_n[i], tp->refreshes,
		       mt_esc_str(esc, sizeof esc, tp->total_last[i]));
	if (tp->ntotal == 0)
		printf("  nothing lowers it\n");
	printf("tracer's own cost: %.2f%% of guest time in probe context, %.0f "
	       "firings/s (mean over the run; part of every time below)\n",
	       tp->n_m[M_PROBE_PCT] ? tp->sum_m[M_PROBE_PCT] / tp->n_m[M_PROBE_PCT] : 0,
	       tp->n_m[M_FIRINGS] ? tp->sum_m[M_FIRINGS] / tp->n_m[M_FIRINGS] : 0);
	printf("metrics (mean over the run, EWMA alpha 0.3):\n");
	for (int m = 0; m < M_NMETRICS; m++) {
		if (tp->n_m[m] == 0) {
			printf("  %-20s unavailable\n", metric_defs[m].name);
			continue;
		}
		printf("  %-20s %12.2f  ewma %12.2f\n", metric_defs[m].name,
		       tp->sum_m[m] / tp->n_m[m], tp->ewma[m].value);
	}
	tp->last_score = score;
	fflush(stdout);
}

/* ---- the session hook -------------------------------------------------- */

static void
on_record(void *arg, const struct mt_rechdr *h, const struct mt_probe *p,
	  uint32_t clause, const uint8_t *data)
{
	struct top *tp = arg;
	struct deduction d[32];
	size_t nd;
	double score;

	if ((clause != tp->tick_clause && clause != tp->end_clause) || tp->stop)
		return;
	if (clause == tp->end_clause) {
		if (tp->health)
			return;		/* health's intervals are whole ones */
		tp->partial = 1;
	}
	if (read_interval(tp, mt_rec_int(tp->tick_recs[0], data),
			  (double)mt_rec_int(tp->tick_recs[1], data),
			  (double)mt_rec_int(tp->tick_recs[2], data)) != 0) {
		tp->stop = 1;
		return;
	}
	tp->refreshes++;
	nd = interval_deductions(tp, d);
	score = score_of(d, nd);
	if (tp->health)
		total_add(tp, d, nd);
	else
		print_refresh(tp, d, nd, score);
	remember(tp);
	if (tp->count > 0 && tp->refreshes >= tp->count)
		tp->stop = 1;
}

/* The records of clause i's trace() actions (up to 3, into recs if not NULL). */
static uint32_t
trace_recs(const struct mt_prog *prog, uint32_t i, const struct mt_rec **recs)
{
	const struct mt_clause *cl = &prog->clauses[i];
	uint32_t nt = 0;

	for (uint32_t j = 0; j < cl->nacts; j++)
		if (prog->actions[cl->act0 + j].kind == MT_ACT_TRACE && nt < 3) {
			if (recs)
				recs[nt] = &prog->recs[prog->actions[cl->act0 + j].rec0];
			nt++;
		}
	return nt;
}

static int
hook_start(void *arg, const struct mt_prog *prog, const struct mt_image *img,
	   struct mt_target *t, struct mt_consumer *c)
{
	struct top *tp = arg;

	tp->prog = prog;
	tp->c = c;
	tp->cb = t->ops->cb(t);
	/* top's clauses come first: its tick clause is the first one whose
	   actions are three trace()s, its END clause the next one (the
	   same three records) */
	tp->tick_clause = tp->end_clause = UINT32_MAX;
	for (uint32_t i = 0; i < prog->nclauses && tp->tick_clause == UINT32_MAX; i++)
		if (trace_recs(prog, i, tp->tick_recs) == 3)
			tp->tick_clause = i;
	if (tp->tick_clause != UINT32_MAX && tp->tick_clause + 1 < prog->nclauses &&
	    trace_recs(prog, tp->tick_clause + 1, NULL) == 3)
		tp->end_clause = tp->tick_clause + 1;
	if (tp->tick_clause == UINT32_MAX) {
		fprintf(stderr, "machtrace: top: the program has no tick clause\n");
		return -1;
	}
	mt_consumer_set_rechook(c, on_record, tp);
	return 0;
}

static int
hook_poll(void *arg, struct mt_consumer *c)
{
	struct top *tp = arg;
	char ch;

	(void)c;
	while (tp->tty && read(0, &ch, 1) == 1)
		if (ch == 'q' || ch == 'Q')
			tp->stop = 1;
	return tp->stop;
}

/* ---- setup ------------------------------------------------------------- */

/* Free pages: the sum of the kernel's vm_page_segs[].nr_free_pages (what
   vm_page_mem_free() adds up; a static array, so by its address). */
static void
free_expr(const struct mt_session_machine *m, char *buf, size_t len)
{
	char kp[4096], err[256];
	const char *kernel = m->mach.kernel ? m->mach.kernel : mt_stock_kernel(kp, sizeof(kp));
	struct mt_kimg *k = mt_kimg_open(kernel, err, sizeof(err));
	uint64_t segs = 0, nsegs = 0;
	size_t o;

	snprintf(buf, len, "-1");
	if (k == NULL)
		return;
	if (mt_kimg_symbol(k, "vm_page_segs", &segs) == 0 &&
	    mt_kimg_symbol(k, "vm_page_segs_size", &nsegs) == 0 && segs && nsegs) {
		o = (size_t)snprintf(buf, len, "(int64_t)0");
		for (int i = 0; i < 4 && o < len; i++)
			o += (size_t)snprintf(buf + o, len - o, " + (`vm_page_segs_size > %d ? "
					      "((struct vm_page_seg *)0x%llx)[%d].nr_free_pages : 0)",
					      i, (unsigned long long)segs, i);
	}
	mt_kimg_close(k);
}

/* Instruction counting: MACHTRACE_ICOUNT for a boot, the VM's QEMU
   command line for --vm.  shift=N: one instruction is 2^N ns. */
static void
icount_of(struct top *tp)
{
	const char *env = getenv("MACHTRACE_ICOUNT");
	char buf[8192], path[64];
	struct mt_vm vm;
	ssize_t n = 0;
	int fd;

	tp->icount_shift = -1;
	tp->icount_text[0] = '\0';
	if (tp->vm) {
		env = NULL;
		if (mt_vm_find(tp->vm, &vm, buf, sizeof(buf)) == 0 && vm.qemu_pid > 0) {
			snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)vm.qemu_pid);
			if ((fd = open(path, O_RDONLY)) >= 0) {
				n = read(fd, buf, sizeof(buf) - 1);
				close(fd);
			}
			for (ssize_t i = 0; i + 1 < n; i += (ssize_t)strlen(buf + i) + 1)
				if (strcmp(buf + i, "-icount") == 0 &&
				    i + 7 + 1 < n)
					env = buf + i + 8;
		}
	}
	if (env == NULL || *env == '\0')
		return;
	snprintf(tp->icount_text, sizeof(tp->icount_text), "%s", env);
	if (strncmp(env, "shift=", 6) == 0 && env[6] >= '0' && env[6] <= '9')
		tp->icount_shift = atoi(env + 6);
}

static const char explain_text[] =
"machtrace top: what each figure is, from which events (docs/top.md)\n"
"\n"
"Every figure is per interval: from one tick-N firing of top's D program to\n"
"the next (guest clock), read exactly (aggregations keyed by the interval).\n"
"\n"
"Per task (pid, execname):\n"
"  CPU%       sum over the task's threads of (sched:::off-cpu - sched:::on-cpu)\n"
"             timestamps, a running thread charged up to each tick; the idle\n"
"             thread (TH_IDLE) excluded; / interval length\n"
"  SENT       ipc:::send by the sender (args[1]), RECV ipc:::receive by the\n"
"             receiver (curthread): every Mach message, requests and replies\n"
"  FLT        vm:::fault of the task's threads\n"
"  THR        mean of pr_nlwp over the task's sched:::on-cpu firings\n"
"Per CPU (CPUn busy): that time keyed by the CPU (cpu) at off-cpu and each\n"
"  tick, the idle thread excluded; / interval length\n"
"Per RPC routine (msg_id of ipc:::send, named as mach_msgname() names it):\n"
"  SENT, SENT/s, and the\n"
"  latency from ipc:::send to ipc:::receive of the same kmsg, as\n"
"  llquantize(ns, 10, 3, 9, 20); p50/p99: the bucket holding the rank,\n"
"  linearly interpolated inside it (error < the bucket width, 5-50%)\n"
"System:\n"
"  ctxsw      sched:::on-cpu count        msgs  ipc:::send count\n"
"  faults     vm:::fault by args[1] (write, exec, read, wire); zfod, cow, pgin,\n"
"             pgout from vminfo (arg0 summed)\n"
"  free pages the kernel's vm_page_segs[].nr_free_pages, read at the tick\n"
"  drops      principal and aggregation buffer drops, dynamic variable drops,\n"
"             firings missed inside the runtime\n"
"Tracer (TRACER, the probe effect, part of every time above and below):\n"
"  own cost   ns in probe context, timed by the blob around each firing of\n"
"             the runtime (compiled probes' few instructions are not timed),\n"
"             and firings (compiled ones included, not the counting\n"
"             trampoline's), from the runtime's\n"
"             counters, read as top handles the tick (not cut at it)\n"
"\n"
"The ten counters:\n"
"  1 IPC latency          ipc:::send -> ipc:::receive of the same message (p50,\n"
"                         p99 as above); messages to kernel objects are served,\n"
"                         never received, and have none\n"
"  2 scheduling latency   sched:::enqueue -> sched:::on-cpu of that thread\n"
"                         (run-queue latency p50/p99); handoffs never queue\n"
"  3 VM pressure          sum of vm:::fault-done latencies / interval (% of\n"
"                         the time in page faults), faults/s by type\n"
"  4 interrupt overhead   fbt entry->return of hardclock, comintr, kdintr (the\n"
"                         clock, serial and keyboard handlers a QEMU PC with\n"
"                         machload takes) / interval\n"
"  5 lock contention      simple locks compile to nothing on a uniprocessor\n"
"                         kernel (on an SMP one they spin: toolkit/lockstat);\n"
"                         complex locks (lock_read, lock_write) can make a\n"
"                         thread sleep: waits\n"
"                         = calls that hit sched:::sleep before returning, their\n"
"                         time / interval\n"
"  6 memory bandwidth     not measurable under QEMU TCG (no memory model); shown\n"
"                         instead: page-fill bandwidth, (vminfo zfod + cow_fault)\n"
"                         x 4 KiB per second, the bytes the kernel zeroed or\n"
"                         copied for faults\n"
"  7 instructions         with QEMU instruction counting (MACHTRACE_ICOUNT=shift=N,\n"
"                         or a VM started with it) one instruction is 2^N ns of\n"
"                         guest time: instructions/s = 1e9 / 2^N, a task's\n"
"                         instructions = its CPU ns / 2^N; without -icount:\n"
"                         unavailable\n"
"  8 cache misses         unavailable: QEMU's TCG does not model caches\n"
"  9 branch mispredicts   unavailable: TCG does not model branch prediction\n"
" 10 TLB misses           unavailable: TCG's softmmu TLB is QEMU's, not the\n"
"                         guest CPU's; no guest TLB miss is observable\n"
"\n"
"Health (0-100): 100 minus, per interval: VM pressure 0..40 points (2% to 20%\n"
"of the time in faults), run-queue p99 0..20 (10 ms to 100 ms), IPC p99 0..20\n"
"(10 ms to 100 ms), interrupts 0..15 (10% to 50%), lock waits 0..15 (1% to\n"
"20%), drops 10, a late read 10, 3 per metric whose robust z-score\n"
"0.6745 (x - median) / MAD over the last 30 intervals is beyond 3.5 (at most\n"
"15; MAD floored at max(1, 5% of |median|)), 10 per firing --rules rule.\n"
"health reports the mean deduction per cause over its intervals.\n";

static int
top_usage(int health, const char *msg)
{
	if (msg)
		fprintf(stderr, "machtrace: %s: %s\n", health ? "health" : "top", msg);
	if (health)
		fprintf(stderr, "usage: machtrace health [--vm NAME | --disk IMAGE [--snapshot] "
			"| machine options]\n                        [-d SECONDS] [--rules FILE]\n");
	else
		fprintf(stderr, "usage: machtrace top [--vm NAME | --disk IMAGE [--snapshot] | "
			"machine options]\n                     [-d SECONDS] [-b] [-n COUNT] "
			"[--rules FILE] [-s FILE] [--explain]\n");
	if (!msg) {
		fprintf(stderr, "machine options (a fresh boot; default --workload serve):\n");
		mt_mopt_help(stderr, "  ");
	}
	return MT_EXIT_USAGE;
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *nb;
	size_t n = 0, cap = 0, r;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			if ((nb = realloc(buf, cap = cap * 2 + 4096)) == NULL)
				break;
			buf = nb;
		}
		if ((r = fread(buf + n, 1, cap - n - 1, f)) == 0)
			break;
		n += r;
	}
	if (buf)
		buf[n] = '\0';
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int
load_rules(struct top *tp)
{
	char *text, err[256];

	if (tp->rules_file == NULL)
		return 0;
	if ((text = slurp(tp->rules_file)) == NULL) {
		fprintf(stderr, "machtrace: cannot read %s: %s\n", tp->rules_file,
			strerror(errno));
		return -1;
	}
	if (mt_rules_parse(text, &tp->rules, &tp->nrules, err, sizeof(err)) != 0) {
		fprintf(stderr, "machtrace: %s: %s\n", tp->rules_file, err);
		free(text);
		return -1;
	}
	free(text);
	for (size_t i = 0; i < tp->nrules; i++) {
		int m;

		for (m = 0; m < M_NMETRICS; m++)
			if (strcmp(metric_defs[m].name, tp->rules[i].metric) == 0)
				break;
		if (m == M_NMETRICS) {
			fprintf(stderr, "machtrace: %s: line %d, column 1: unknown metric "
				"'%s' (machtrace top --explain; docs/top.md lists them)\n",
				tp->rules_file, tp->rules[i].line, tp->rules[i].metric);
			return -1;
		}
	}
	if ((tp->streak = calloc(tp->nrules + 1, sizeof(int))) == NULL)
		return -1;
	return 0;
}

static void
tty_raw(struct top *tp)
{
	struct termios t;

	if (tp->batch || !isatty(0) || tcgetattr(0, &tp->saved) != 0)
		return;
	t = tp->saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(0, TCSANOW, &t) == 0)
		tp->tty = 1;
}

static void
tty_restore(struct top *tp)
{
	if (tp->tty)
		tcsetattr(0, TCSANOW, &tp->saved);
	tp->tty = 0;
}

/* The session: top's program (and -s FILE's) on the VM or a fresh boot. */
static int
run(struct top *tp)
{
	static const char *const top_xopts[] = { "bufsize", "4m", "aggsize", "16m",
		"dynvarsize", "4m", "strsize", "64", NULL };
	struct mt_cc_src srcs[2] = { { NULL, "machtrace top", 0 }, { NULL, NULL, 0 } };
	struct mt_session_tool tool = {
		tp->health ? "health" : "top", &tp->m, srcs, 1, top_xopts,
		tp->intr,
		{ tp, NULL, hook_start, hook_poll, NULL, 0 },
	};
	char period[32], freex[1024], *prog;
	size_t plen;
	int rc;

	tp->m.vm = tp->vm;
	tp->m.force = 1;
	if (mt_session_machine_vm(&tp->m, stderr) != 0 ||
	    mt_session_machine_disk(&tp->m, stderr) != 0)
		return MT_EXIT_USAGE;
	free_expr(&tp->m, freex, sizeof(freex));
	snprintf(period, sizeof(period), "%lds", tp->seconds);
	plen = sizeof(top_prog) + 4 * strlen(period) + 2 * strlen(freex) + 64;
	if ((prog = tp->texts[0] = malloc(plen)) == NULL)
		return MT_EXIT_ERROR;
	snprintf(prog, plen, top_prog, period, freex);
	if (tp->show_program) {
		fputs(prog, stdout);
		return MT_EXIT_OK;
	}
	srcs[0].text = prog;
	if (tp->extra_file) {
		srcs[1].name = tp->extra_file;
		if ((srcs[1].text = tp->texts[1] = slurp(tp->extra_file)) == NULL) {
			fprintf(stderr, "machtrace: top: cannot read %s: %s\n",
				tp->extra_file, strerror(errno));
			return MT_EXIT_ERROR;
		}
		tool.nsrcs = 2;
	}
	icount_of(tp);
	if ((tp->msgids = mt_msgids_open(MT_MSGIDS_SYSDIR, NULL, 0, freex,
					 sizeof(freex))) == NULL)
		fprintf(stderr, "machtrace: top: msgids: %s (routines shown by id)\n", freex);
	for (int m = 0; m < M_NMETRICS; m++)
		mt_ewma_init(&tp->ewma[m], 0.3);
	tty_raw(tp);
	rc = mt_session_tool_run(&tool);
	tty_restore(tp);
	if (tp->health && tp->refreshes > 0)
		print_health(tp);
	else if (tp->health) {
		fprintf(stderr, "machtrace: health: no interval completed\n");
		rc = rc ? rc : MT_EXIT_ERROR;
	}
	prev_free(tp);
	mt_msgids_free(tp->msgids);
	free(tp->rules);
	free(tp->streak);
	return rc;
}

static int top_main(struct top *tp, int argc, char **argv, int health);

int
tool_top_main(int argc, char **argv, int health, struct mt_session_intr intr)
{
	struct top *tpp = calloc(1, sizeof(*tpp));
	int rc;

	if (tpp == NULL)
		return MT_EXIT_ERROR;
	tpp->intr = intr;
	rc = top_main(tpp, argc, argv, health);
	free(tpp->texts[0]);
	free(tpp->texts[1]);
	mt_session_machine_free(&tpp->m);
	free(tpp);
	return rc;
}

/* The options, then the session (tp zeroed). */
static int
top_main(struct top *tp, int argc, char **argv, int health)
{
	static const struct option opts[] = {
		{ "vm", required_argument, NULL, 'v' },
		{ "rules", required_argument, NULL, 'r' },
		{ "disk", required_argument, NULL, 'D' },
		{ "snapshot", no_argument, NULL, 'S' },
		{ "explain", no_argument, NULL, 'e' },
		{ "program", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[512];
	int c;

	if (mt_mopt_extract(&tp->m.mach, &argc, argv, err, sizeof(err)) != 0)
		return top_usage(health, err);
	tp->health = health;
	tp->seconds = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, health ? "d:h" : "d:bn:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'v': tp->vm = optarg; break;
		case 'r': tp->rules_file = optarg; break;
		case 'D': tp->m.disk = optarg; break;
		case 'S': tp->m.disk_snapshot = 1; break;
		case 'e':
			if (health)
				return top_usage(health, "--explain is top's");
			tp->explain = 1;
			break;
		case 'b': tp->batch = 1; break;
		case 'P': tp->show_program = 1; break;
		case 's': tp->extra_file = optarg; break;
		case 'd': case 'n': {
			long v;

			if (mt_session_whole_arg(optarg, &v) != 0)
				return top_usage(health, c == 'd' ? "-d wants whole seconds, "
						 "1 to 3600" : "-n wants a count, 1 to 3600");
			if (c == 'd')
				tp->seconds = v;
			else
				tp->count = v;
			break;
		}
		case 'h': top_usage(health, NULL); return MT_EXIT_OK;
		default: return top_usage(health, NULL);
		}
	}
	if (optind != argc)
		return top_usage(health, "no operands");
	if (tp->explain) {
		fputs(explain_text, stdout);
		return MT_EXIT_OK;
	}
	if (health) {
		/* -d S: the run's length, in one-second intervals */
		tp->count = tp->seconds > 1 ? tp->seconds : 2;
		tp->seconds = 1;
		tp->batch = 1;
	}
	if (tp->vm && (tp->m.mach.kernel || tp->m.mach.nmodules || tp->m.mach.workload ||
		       tp->m.mach.mem_mb || tp->m.mach.cpus)) {
		snprintf(err, sizeof(err), "%s boots a kernel; a VM's workload is fixed at vm "
			 "start, its kernel, modules, memory and CPUs too", tp->m.mach.kernel ?
			 "--kernel" : tp->m.mach.nmodules ? "--module" : tp->m.mach.workload ?
			 "--workload" : tp->m.mach.mem_mb ? "--memory" : "--cpus");
		return top_usage(health, err);
	}
	if (!tp->vm && !getenv("MACHTRACE_VM") && !tp->m.disk && !tp->m.mach.workload &&
	    !tp->m.mach.nmodules)
		tp->m.mach.workload = "serve";
	if (load_rules(tp) != 0)
		return MT_EXIT_USAGE;
	return run(tp);
}
