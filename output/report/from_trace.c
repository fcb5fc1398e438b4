/*
 * Feeding the report's model from a recorded trace (the CTF reader of
 * include/machtrace/trace.h).  Events are recognised by their LTTng names
 * (`machtrace record --events`).  An event's thread is its tid field
 * (or LTTng's context names for it), else the thread its CPU runs by the
 * last sched_switch there (the syscall events carry no tid), else unknown.
 * A stack sample is a string field stackN or ustackN (record's stack() and
 * ustack()), frames separated by ';' or newlines, from the leaf; a
 * frame is its function (offsets dropped).
 */
#include <stdlib.h>
#include <string.h>
#include "machtrace/trace.h"
#include "output/report/load.h"
#include "impl.h"

#define MAX_FRAMES	256

static int64_t
event_tid(struct rp *r, const struct mt_trace_event *ev)
{
	static const char *const names[] = { "tid", "vtid", "_tid", "_vtid" };
	int64_t v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (mt_trace_get_int(ev, names[i], &v) == 0)
			return v;
	return rp_cpu_thread(r, (int)ev->cpu);
}

static uint64_t
field_u64(const struct mt_trace_event *ev, const char *name)
{
	int64_t v;

	return mt_trace_get_int(ev, name, &v) == 0 ? (uint64_t)v : 0;
}

static const char *
ipc_routine(const struct mt_trace_event *ev)
{
	static const char *const names[] = { "routine", "msg_name", "name" };
	const char *s;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((s = mt_trace_get_str(ev, names[i])) != NULL)
			return s;
	return NULL;
}

static int
sched_switch(struct rp *r, const struct mt_trace_event *ev)
{
	int64_t prev, next;

	if (mt_trace_get_int(ev, "prev_tid", &prev) != 0 ||
	    mt_trace_get_int(ev, "next_tid", &next) != 0)
		return 0;
	return rp_sched_switch(r, ev->ts, (int)ev->cpu, prev,
			       mt_trace_get_str(ev, "prev_comm"), next,
			       mt_trace_get_str(ev, "next_comm"));
}

/*
 * "mod`func+0x1f" -> "mod`func": a flame graph's frame is a function, its
 * samples at every offset together.
 */
static void
strip_offset(char *frame)
{
	char *plus = strrchr(frame, '+');

	if (plus != NULL && plus != frame && plus[1] == '0' && plus[2] == 'x' &&
	    plus[3] != '\0' &&
	    plus[3 + strspn(plus + 3, "0123456789abcdefABCDEF")] == '\0')
		*plus = '\0';
}

/* Split a stack string into frames (leaf first) and add it. */
static int
stack_sample(struct rp *r, const char *text)
{
	const char *frames[MAX_FRAMES];
	char *copy = strdup(text), *save = NULL, *tok;
	int n = 0, rc;

	if (copy == NULL)
		return -1;
	for (tok = strtok_r(copy, ";\n", &save); tok != NULL && n < MAX_FRAMES;
	     tok = strtok_r(NULL, ";\n", &save)) {
		tok += strspn(tok, " \t");
		strip_offset(tok);
		if (*tok)
			frames[n++] = tok;
	}
	/* a sample with no frame still counts (in the root) */
	rc = rp_stack(r, frames, n, 1);
	free(copy);
	return rc;
}

/* "stack", "ustack", or either followed by digits. */
static int
is_stack_field(const char *name)
{
	size_t n = strncmp(name, "stack", 5) == 0 ? 5 :
		strncmp(name, "ustack", 6) == 0 ? 6 : 0;

	return n != 0 && name[n + strspn(name + n, "0123456789")] == '\0';
}

static int
stacks(struct rp *r, const struct mt_trace_event *ev)
{
	for (uint32_t i = 0; i < ev->cls->nfields; i++) {
		const struct mt_trace_field *f = &ev->cls->fields[i];

		if (f->type == MT_TF_STR && is_stack_field(f->name) &&
		    stack_sample(r, ev->vals[i].s) != 0)
			return -1;
	}
	return 0;
}

static int
feed(struct rp *r, const struct mt_trace_event *ev)
{
	const char *name = ev->cls->name, *s;

	if (rp_event(r, ev->ts, (int)ev->cpu, name) != 0)
		return -1;
	if (strcmp(name, "sched_switch") == 0)
		return sched_switch(r, ev);
	if (strcmp(name, "ipc_send") == 0 || strcmp(name, "ipc_receive") == 0) {
		s = ipc_routine(ev);
		return s == NULL ? 0 : rp_ipc(r, ev->ts, name[4] == 's',
					      event_tid(r, ev), s,
					      field_u64(ev, "remote_port"),
					      field_u64(ev, "local_port"));
	}
	if (strncmp(name, "syscall_entry_", 14) == 0)
		return rp_syscall(r, ev->ts, 1, event_tid(r, ev), name + 14);
	if (strncmp(name, "syscall_exit_", 13) == 0)
		return rp_syscall(r, ev->ts, 0, event_tid(r, ev), name + 13);
	return stacks(r, ev);
}

static int
whole_trace(struct rp *r, struct mt_trace *t)
{
	const char *key, *val;

	for (uint32_t i = 0; mt_trace_env_at(t, i, &key, &val) == 0; i++)
		if (rp_meta(r, key, val) != 0)
			return -1;
	for (uint32_t c = 0; c < mt_trace_ncpus(t); c++)
		if (rp_drops(r, (int)c, mt_trace_discarded_cpu(t, c)) != 0)
			return -1;
	return 0;
}

int
rp_load_trace(struct rp *r, struct mt_trace *t,
	      void (*progress)(void *ctx, uint64_t done, uint64_t total),
	      void *ctx, char *err, size_t errlen)
{
	struct mt_trace_event ev;
	uint64_t total = mt_trace_stream_bytes(t), n = 0;
	int rc;

	if (whole_trace(r, t) != 0)
		goto nomem;
	while ((rc = mt_trace_next(t, &ev, err, errlen)) == 1) {
		if (feed(r, &ev) != 0)
			goto nomem;
		if (progress != NULL && (++n & 0xffff) == 0)
			progress(ctx, mt_trace_bytes_read(t), total);
	}
	if (progress != NULL)
		progress(ctx, total, total);
	return rc;
nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}
