/*
 * --format chrome: Chrome's trace-event JSON (the "JSON Object Format"
 * Perfetto UI and chrome://tracing load).  Tracks are tasks (pid) and
 * threads (tid), named by metadata events.
 *
 *   sched_switch    complete events ("X") per thread: "running" while on
 *                   CPU, "waiting" (left to wait, prev_state 1) or
 *                   "preempted" (prev_state 0) while off it
 *   ipc_send/receive  a zero-length slice "send NAME"/"receive NAME" on the
 *                   sender's / receiver's thread joined by a flow arrow
 *                   ("s" then "f", one id per message: the kmsg address
 *                   between a send and its receive); counter "ipc in flight"
 *   anything else   an instant event ("i") with the fields as args, on the
 *                   event's tid field, else the thread the CPU runs, else
 *                   (no thread known yet) a global one ("s":"g")
 *
 * Two passes: the first learns each thread's task and names (from the
 * events with both tid and pid, and forks), the second writes.  Times are
 * microseconds from the first event.
 */
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

struct chrome {
	struct mt_json jw;		/* compact, an event a line */
	uint64_t t0;
	struct imap threads;		/* tid -> a: pid, b: on-cpu since + 1 or
					   0, c: off-cpu since + 1 (sign: reason) */
	struct imap comms;		/* hash(comm) -> a: pid */
	struct imap procs;		/* pid -> name */
	struct imap flows;		/* kmsg -> a: flow id */
	int64_t *cur;			/* [ncpus] tid on each CPU, -1 unknown */
	uint32_t ncpus;
	int64_t next_flow, in_flight, next_fake_pid;
};

static int64_t
str_key(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (s && *s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return (int64_t)h;
}

static void
set_name(struct imap_ent *e, const char *name)
{
	if (e && name && *name && (e->name == NULL || strcmp(e->name, name) != 0)) {
		free(e->name);
		e->name = strdup(name);
	}
}

/* Thread tid is in task pid (pid < 0: unknown yet), named comm. */
static void
learn(struct chrome *c, int64_t tid, int64_t pid, const char *comm)
{
	struct imap_ent *t = imap_get(&c->threads, tid, 1);

	if (t == NULL)
		return;
	if (pid >= 0) {
		t->a = pid + 1;
		set_name(imap_get(&c->procs, pid, 1), comm);
		if (comm && *comm) {
			struct imap_ent *k = imap_get(&c->comms, str_key(comm), 1);
			if (k && !k->a)
				k->a = pid + 1;
		}
	}
	set_name(imap_get(&c->threads, tid, 0), comm);
}

static void
learn_event(struct chrome *c, const struct mt_trace_event *ev)
{
	const char *n = ev->cls->name;
	int64_t tid, pid;

	if (strcmp(n, "sched_process_fork") == 0) {
		if (mt_trace_get_int(ev, "parent_tid", &tid) == 0 &&
		    mt_trace_get_int(ev, "parent_pid", &pid) == 0)
			learn(c, tid, pid, mt_trace_get_str(ev, "parent_comm"));
		if (mt_trace_get_int(ev, "child_tid", &tid) == 0 &&
		    mt_trace_get_int(ev, "child_pid", &pid) == 0)
			learn(c, tid, pid, mt_trace_get_str(ev, "child_comm"));
	} else if (strcmp(n, "sched_switch") == 0) {
		if (mt_trace_get_int(ev, "prev_tid", &tid) == 0)
			learn(c, tid, -1, mt_trace_get_str(ev, "prev_comm"));
		if (mt_trace_get_int(ev, "next_tid", &tid) == 0)
			learn(c, tid, -1, mt_trace_get_str(ev, "next_comm"));
	} else if (mt_trace_get_int(ev, "tid", &tid) == 0) {
		if (mt_trace_get_int(ev, "pid", &pid) != 0)
			pid = -1;
		learn(c, tid, pid, mt_trace_get_str(ev, "comm"));
	}
}

/* The task of tid: learnt, else that of a thread with its name, else a
   made-up one per name (kernel threads of one task share a name). */
static int64_t
pid_of(struct chrome *c, int64_t tid)
{
	struct imap_ent *t = imap_get(&c->threads, tid, 1), *k;

	if (t == NULL)
		return 0;
	if (t->a)
		return t->a - 1;
	if (t->name && (k = imap_get(&c->comms, str_key(t->name), 1)) != NULL) {
		if (!k->a) {
			k->a = ++c->next_fake_pid + 1;
			set_name(imap_get(&c->procs, k->a - 1, 1), t->name);
			k = imap_get(&c->comms, str_key(t->name), 0);
		}
		t = imap_get(&c->threads, tid, 0);
		t->a = k->a;
		return t->a - 1;
	}
	return 0;
}

static double
us(const struct chrome *c, uint64_t ts)
{
	return ts >= c->t0 ? (ts - c->t0) / 1000.0 : 0;
}

/* An event on thread tid's track, left open for what follows its time;
   id: a flow's (0: none). */
static void
event_open(struct chrome *c, const char *ph, const char *cat, const char *name,
	   int64_t id, int64_t pid, int64_t tid, uint64_t ts)
{
	mt_json_open(&c->jw, NULL, MT_JSON_OBJECT);
	mt_json_strz(&c->jw, "ph", ph);
	mt_json_strz(&c->jw, "cat", cat);
	mt_json_strz(&c->jw, "name", name);
	if (id)
		mt_json_int(&c->jw, "id", id);
	mt_json_int(&c->jw, "pid", pid);
	mt_json_int(&c->jw, "tid", tid);
	mt_json_fixed(&c->jw, "ts", us(c, ts), 3);
}

static void
slice(struct chrome *c, int64_t tid, const char *name, const char *cat,
      uint64_t from, uint64_t to)
{
	event_open(c, "X", cat, name, 0, pid_of(c, tid), tid, from);
	mt_json_fixed(&c->jw, "dur", us(c, to) - us(c, from), 3);
	mt_json_close(&c->jw);
}

/* The event's fields as its "args". */
static void
args_of(struct chrome *c, const struct mt_trace_event *ev)
{
	char buf[32];

	mt_json_open(&c->jw, "args", MT_JSON_OBJECT);
	for (uint32_t i = 0; i < ev->cls->nfields; i++) {
		const struct mt_trace_field *f = &ev->cls->fields[i];
		const char *key = f->name ? f->name : "";

		if (f->type == MT_TF_STR) {
			mt_json_strz(&c->jw, key, ev->vals[i].s);
		} else if (f->type == MT_TF_BYTES) {
			snprintf(buf, sizeof(buf), "%u bytes", f->size);
			mt_json_strz(&c->jw, key, buf);
		} else if (f->type == MT_TF_HEX) {
			snprintf(buf, sizeof(buf), "0x%llx",
				 (unsigned long long)ev->vals[i].i);
			mt_json_strz(&c->jw, key, buf);
		} else if (f->type == MT_TF_UINT) {
			mt_json_uint(&c->jw, key, (uint64_t)ev->vals[i].i);
		} else {
			mt_json_int(&c->jw, key, ev->vals[i].i);
		}
	}
	mt_json_close(&c->jw);
}

static void
sched_switch(struct chrome *c, const struct mt_trace_event *ev)
{
	int64_t prev, next, state = 1;
	struct imap_ent *t;
	/* kept as signed ts + 1 below: a time past 2^63 ns is taken as
	   2^63 - 2 ns rather than overflow */
	uint64_t ts = ev->ts < INT64_MAX ? ev->ts : INT64_MAX - 1;

	if (mt_trace_get_int(ev, "prev_tid", &prev) != 0 ||
	    mt_trace_get_int(ev, "next_tid", &next) != 0)
		return;
	mt_trace_get_int(ev, "prev_state", &state);
	if ((t = imap_get(&c->threads, prev, 1)) != NULL) {
		uint64_t since = t->b ? (uint64_t)t->b - 1 : c->t0;

		slice(c, prev, "running", "sched", since, ev->ts);
		t = imap_get(&c->threads, prev, 0);
		t->b = 0;
		t->c = state ? -(int64_t)(ts + 1) : (int64_t)(ts + 1);
	}
	if ((t = imap_get(&c->threads, next, 1)) != NULL) {
		if (t->c) {
			uint64_t since = (uint64_t)(t->c < 0 ? -t->c : t->c) - 1;

			slice(c, next, t->c < 0 ? "waiting" : "preempted", "sched",
			      since, ev->ts);
			t = imap_get(&c->threads, next, 0);
		}
		t->c = 0;
		t->b = (int64_t)ts + 1;
	}
	if (ev->cpu < c->ncpus)
		c->cur[ev->cpu] = next;
}

static void
counter(struct chrome *c, const char *name, int64_t v, uint64_t ts)
{
	mt_json_open(&c->jw, NULL, MT_JSON_OBJECT);
	mt_json_strz(&c->jw, "ph", "C");
	mt_json_int(&c->jw, "pid", 0);
	mt_json_strz(&c->jw, "name", name);
	mt_json_fixed(&c->jw, "ts", us(c, ts), 3);
	mt_json_open(&c->jw, "args", MT_JSON_OBJECT);
	mt_json_int(&c->jw, "value", v);
	mt_json_close(&c->jw);
	mt_json_close(&c->jw);
}

static void
ipc(struct chrome *c, const struct mt_trace_event *ev, int send)
{
	const char *name = mt_trace_get_str(ev, "msg_name");
	int64_t tid, kmsg, pid, id;
	struct imap_ent *f;
	char title[300];

	if (mt_trace_get_int(ev, "tid", &tid) != 0 ||
	    mt_trace_get_int(ev, "kmsg", &kmsg) != 0)
		return;
	pid = pid_of(c, tid);
	if (send) {
		id = ++c->next_flow;
		if ((f = imap_get(&c->flows, kmsg, 1)) != NULL) {
			c->in_flight += f->a == 0;
			f->a = id;
		}
	} else {
		f = imap_get(&c->flows, kmsg, 0);
		id = f ? f->a : 0;
		if (f) {
			imap_del(&c->flows, kmsg);
			c->in_flight--;
		}
	}
	snprintf(title, sizeof(title), "%s %s", send ? "send" : "receive",
		 name ? name : "?");
	event_open(c, "X", "ipc", title, 0, pid, tid, ev->ts);
	mt_json_int(&c->jw, "dur", 0);
	args_of(c, ev);
	mt_json_close(&c->jw);
	if (id) {
		event_open(c, send ? "s" : "f", "ipc", "ipc", id, pid, tid, ev->ts);
		if (!send)
			mt_json_strz(&c->jw, "bp", "e");
		mt_json_close(&c->jw);
	}
	counter(c, "ipc in flight", c->in_flight, ev->ts);
}

static void
instant(struct chrome *c, const struct mt_trace_event *ev)
{
	int64_t tid = -1;

	if (mt_trace_get_int(ev, "tid", &tid) != 0 && ev->cpu < c->ncpus)
		tid = c->cur[ev->cpu];
	mt_json_open(&c->jw, NULL, MT_JSON_OBJECT);
	mt_json_strz(&c->jw, "ph", "i");
	mt_json_strz(&c->jw, "s", tid < 0 ? "g" : "t");
	mt_json_strz(&c->jw, "cat", "event");
	mt_json_strz(&c->jw, "name", ev->cls->name);
	if (tid >= 0) {
		mt_json_int(&c->jw, "pid", pid_of(c, tid));
		mt_json_int(&c->jw, "tid", tid);
	}
	mt_json_fixed(&c->jw, "ts", us(c, ev->ts), 3);
	args_of(c, ev);
	mt_json_close(&c->jw);
}

static void
write_event(struct chrome *c, const struct mt_trace_event *ev)
{
	const char *n = ev->cls->name;

	if (strcmp(n, "sched_switch") == 0)
		sched_switch(c, ev);
	else if (strcmp(n, "ipc_send") == 0)
		ipc(c, ev, 1);
	else if (strcmp(n, "ipc_receive") == 0)
		ipc(c, ev, 0);
	else
		instant(c, ev);
}

/* A track's metadata event: its name, or "task N"/"thread N" when no
   event named it (tid < 0: a task's). */
static void
meta(struct chrome *c, const struct imap_ent *e, int64_t pid, int64_t tid)
{
	char buf[48];

	if (e->name == NULL)
		snprintf(buf, sizeof(buf), "%s %lld", tid < 0 ? "task" : "thread",
			 (long long)e->key);
	mt_json_open(&c->jw, NULL, MT_JSON_OBJECT);
	mt_json_strz(&c->jw, "ph", "M");
	mt_json_strz(&c->jw, "name", tid < 0 ? "process_name" : "thread_name");
	mt_json_int(&c->jw, "pid", pid);
	if (tid >= 0)
		mt_json_int(&c->jw, "tid", tid);
	mt_json_open(&c->jw, "args", MT_JSON_OBJECT);
	mt_json_strz(&c->jw, "name", e->name ? e->name : buf);
	mt_json_close(&c->jw);
	mt_json_close(&c->jw);
}

/* The slices still open at the end, then the names of tasks and threads. */
static void
finish(struct chrome *c, uint64_t last)
{
	for (size_t i = 0; i < c->threads.cap; i++) {
		struct imap_ent *t = &c->threads.e[i];

		if (!t->used)
			continue;
		if (t->b)
			slice(c, t->key, "running", "sched", (uint64_t)t->b - 1, last);
		else if (t->c)
			slice(c, t->key, t->c < 0 ? "waiting" : "preempted", "sched",
			      (uint64_t)(t->c < 0 ? -t->c : t->c) - 1, last);
	}
	for (size_t i = 0; i < c->threads.cap; i++) {
		struct imap_ent *t = &c->threads.e[i];

		if (!t->used)
			continue;
		meta(c, t, t->a ? t->a - 1 : 0, t->key);
	}
	for (size_t i = 0; i < c->procs.cap; i++) {
		struct imap_ent *p = &c->procs.e[i];

		if (!p->used)
			continue;
		meta(c, p, p->key, -1);
	}
}

int
mt_export_chrome(struct mt_trace *t, FILE *out, const struct mt_export_opts *o,
		 char *err, size_t errlen)
{
	struct chrome c;
	struct mt_trace_event ev;
	uint64_t nev = 0, last = 0;
	int rc;

	memset(&c, 0, sizeof(c));
	mt_json_init(&c.jw, out, MT_JSON_COMPACT);
	c.ncpus = mt_trace_ncpus(t);
	c.next_fake_pid = 1 << 20;
	if ((c.cur = malloc((c.ncpus + 1) * sizeof(*c.cur))) == NULL)
		return -1;
	for (uint32_t i = 0; i <= c.ncpus; i++)
		c.cur[i] = -1;
	rc = mt_trace_rewind(t, err, errlen);
	while (rc == 0 && (rc = mt_trace_next(t, &ev, err, errlen)) == 1) {
		if (nev++ == 0)
			c.t0 = ev.ts;
		learn_event(&c, &ev);
		rc = 0;
	}
	mt_json_open(&c.jw, NULL, MT_JSON_OBJECT);
	mt_json_strz(&c.jw, "displayTimeUnit", "ns");
	mt_json_open(&c.jw, "otherData", MT_JSON_OBJECT);
	mt_json_strz(&c.jw, "producer", "machtrace");
	mt_json_close(&c.jw);
	mt_json_open(&c.jw, "traceEvents", MT_JSON_ARRAY | MT_JSON_LINES);
	nev = 0;
	if (rc == 0)
		rc = mt_trace_rewind(t, err, errlen);
	while (rc == 0 && (rc = mt_trace_next(t, &ev, err, errlen)) == 1) {
		write_event(&c, &ev);
		last = ev.ts;
		export_progress(t, o, ++nev);
		rc = 0;
	}
	if (rc == 0)
		finish(&c, last);
	mt_json_close(&c.jw);
	mt_json_close(&c.jw);
	fputc('\n', out);
	imap_free(&c.threads);
	imap_free(&c.comms);
	imap_free(&c.procs);
	imap_free(&c.flows);
	free(c.cur);
	return rc;
}
