/*
 * machtrace record -o DIR: every record of the session becomes a CTF
 * event.  One event class per enabled probe (ECB): named after the probe
 * ("prov:mod:func:name"), or by --events' table for the generated
 * clauses; its fields are the clause's recorded data in order (see
 * docs/recording.md for the names and types).  Drops of the principal
 * buffers go into each stream's events_discarded as they are seen.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tools/record/record.h"
#include "machtrace/consumer.h"
#include "machtrace/msgids.h"
#include "machtrace/trace.h"

/* How one field is made from a record. */
enum { FK_INT, FK_STR, FK_MEM, FK_STACK, FK_USTACK, FK_SYM, FK_PRINTF,
       FK_MSGNAME };

struct fplan {
	uint16_t how;			/* FK_* */
	uint16_t symkind;		/* FK_SYM: MT_ACT_SYM ...; FK_INT: signed */
	uint32_t action;		/* FK_PRINTF: the action */
	const struct mt_rec *r;
};

struct clause_plan {
	int done;
	uint32_t n;
	struct fplan *f;
	struct mt_trace_field *fields;
};

struct rec_state {
	struct mt_trace_writer *w;
	const struct mt_prog *prog;
	const struct mt_image *img;
	struct mt_consumer *c;
	struct mt_cb *cb;
	struct mt_msgids *msgids;	/* FK_MSGNAME's names, or NULL */
	unsigned mask;
	uint32_t ngen;			/* generated clauses come first */
	int *class_of;			/* [necbs + 1], -1 unknown */
	struct clause_plan *plans;	/* [nclauses] */
	uint64_t *seen_drops;		/* [ncpus] */
	int have_offset, failed;
	int timed;			/* the target times its firings */
	uint64_t next_progress;
	uint64_t start_ns;
};

static uint64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static const char *
img_string(const struct mt_image *img, uint32_t off)
{
	return off < img->strtab_size ?
	       (const char *)img + img->strtab_off + off : "";
}

/* At most REC_MAXFIELDS fields per event: on_record's value array;
   REC_HOSTFIELDS of them filled on the host ('@' in events.c's table). */
#define REC_MAXFIELDS	256
#define REC_HOSTFIELDS	4

static void
add_field(struct clause_plan *pl, const char *name, uint16_t type,
	  uint32_t size, struct fplan f)
{
	if (pl->n >= REC_MAXFIELDS)
		return;
	pl->f[pl->n] = f;
	pl->fields[pl->n].name = strdup(name);
	pl->fields[pl->n].type = type;
	pl->fields[pl->n].size = size;
	pl->n++;
}

/* A value rec: its field (type from the rec's D type). */
static void
value_field(struct clause_plan *pl, const struct mt_prog *prog, uint32_t ri,
	    const char *name)
{
	const struct mt_rec *r = &prog->recs[ri];
	const struct mt_rec_info *inf = prog->rec_info ? &prog->rec_info[ri] : NULL;
	struct fplan f = { FK_INT, 0, 0, r };

	if (inf && inf->kind == MT_TI_STR) {
		f.how = FK_STR;
		add_field(pl, name, MT_TF_STR, 0, f);
	} else if (r->kind == MT_REC_INT && r->size <= 8) {
		int sign = inf ? inf->kind == MT_TI_INT : (r->flags & MT_RF_SIGNED) != 0;

		f.symkind = (uint16_t)(sign && !(inf && inf->is_ptr));
		add_field(pl, name, inf && inf->is_ptr ? MT_TF_HEX :
			  sign ? MT_TF_INT : MT_TF_UINT, r->size, f);
	} else {
		f.how = FK_MEM;
		add_field(pl, name, MT_TF_BYTES, r->size, f);
	}
}

/* The fields of clause ci: each data-printing action's values. */
static int
make_plan(struct rec_state *rs, uint32_t ci)
{
	const struct mt_prog *prog = rs->prog;
	const struct mt_clause *cl = &prog->clauses[ci];
	struct clause_plan *pl = &rs->plans[ci];
	uint32_t max = 0, k = 0;
	char name[64];

	for (uint32_t i = 0; i < cl->nacts; i++)
		max += prog->actions[cl->act0 + i].nrecs + 1;
	pl->f = calloc(max + 1 + REC_HOSTFIELDS, sizeof(*pl->f));
	pl->fields = calloc(max + 1 + REC_HOSTFIELDS, sizeof(*pl->fields));
	if (pl->f == NULL || pl->fields == NULL)
		return -1;
	for (uint32_t i = 0; i < cl->nacts; i++, k++) {
		const struct mt_action *a = &prog->actions[cl->act0 + i];
		const struct mt_rec *r = a->nrecs ? &prog->recs[a->rec0] : NULL;
		struct fplan f = { FK_STACK, a->kind, cl->act0 + i, r };

		switch (a->kind) {
		case MT_ACT_TRACE: case MT_ACT_PRINT:
			snprintf(name, sizeof(name), "trace%u", k);
			if (r)
				value_field(pl, prog, a->rec0, name);
			break;
		case MT_ACT_PRINTF:
			f.how = FK_PRINTF;
			snprintf(name, sizeof(name), "printf%u", k);
			add_field(pl, name, MT_TF_STR, 0, f);
			for (uint32_t j = 0; j < a->nrecs; j++) {
				snprintf(name, sizeof(name), "printf%u_%u", k, j);
				value_field(pl, prog, a->rec0 + j, name);
			}
			break;
		case MT_ACT_STACK: case MT_ACT_USTACK:
			f.how = a->kind == MT_ACT_STACK ? FK_STACK : FK_USTACK;
			snprintf(name, sizeof(name), "%s%u", a->kind ==
				 MT_ACT_STACK ? "stack" : "ustack", k);
			if (r)
				add_field(pl, name, MT_TF_STR, 0, f);
			break;
		case MT_ACT_SYM: case MT_ACT_MOD: case MT_ACT_USYM:
		case MT_ACT_UMOD: case MT_ACT_UADDR:
			f.how = FK_SYM;
			snprintf(name, sizeof(name), "sym%u", k);
			if (r)
				add_field(pl, name, MT_TF_STR, 0, f);
			break;
		case MT_ACT_TRACEMEM:
			f.how = FK_MEM;
			snprintf(name, sizeof(name), "mem%u", k);
			if (r)
				add_field(pl, name, MT_TF_BYTES, r->size, f);
			break;
		}
	}
	pl->done = 1;
	return 0;
}

/* A host field after field i: the MIG routine named by field i's id. */
static void
host_field(struct clause_plan *pl, uint32_t i)
{
	struct fplan f = { FK_MSGNAME, 0, 0, pl->f[i].r };

	memmove(&pl->f[i + 2], &pl->f[i + 1], (pl->n - i - 1) * sizeof(*pl->f));
	memmove(&pl->fields[i + 2], &pl->fields[i + 1],
		(pl->n - i - 1) * sizeof(*pl->fields));
	pl->f[i + 1] = f;
	pl->fields[i + 1].name = NULL;
	pl->fields[i + 1].type = MT_TF_STR;
	pl->fields[i + 1].size = 0;
	pl->n++;
}

/* Generated clauses: the table's field names, when they match. */
static void
gen_names(struct clause_plan *pl, const struct rec_gen *g)
{
	const char *p = g->fields;
	uint32_t n = 0, nhost = 0;

	for (const char *q = p; *q; q++) {
		n += *q == ',';
		nhost += *q == '@';
	}
	if (n + 1 != pl->n + nhost || nhost > REC_HOSTFIELDS)
		return;
	for (uint32_t i = 0; i < n + 1; i++) {
		size_t len = strcspn(p, ",");
		int hex = len && p[len - 1] == '#';

		if (len && p[len - 1] == '@' && i > 0 && pl->f[i - 1].how == FK_INT) {
			host_field(pl, i - 1);
			hex = 1;	/* the '@', dropped from the name */
		}

		free(pl->fields[i].name);
		pl->fields[i].name = strndup(p, len - hex);
		if (hex && pl->fields[i].type != MT_TF_STR &&
		    pl->fields[i].type != MT_TF_BYTES)
			pl->fields[i].type = MT_TF_HEX;
		p += len + (p[len] == ',');
	}
}

static int
class_for(struct rec_state *rs, uint32_t epid, const struct mt_probe *p,
	  uint32_t ci)
{
	struct clause_plan *pl = &rs->plans[ci];
	const struct rec_gen *g = ci < rs->ngen ? rec_events_clause(rs->mask, ci) : NULL;
	char name[512];
	int id;

	if (rs->class_of[epid] >= 0)
		return rs->class_of[epid];
	if (!pl->done) {
		if (make_plan(rs, ci) != 0)
			return -1;
		if (g)
			gen_names(pl, g);
	}
	if (g)
		rec_events_name(g, img_string(rs->img, p->func), name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s:%s:%s:%s",
			 img_string(rs->img, p->prov), img_string(rs->img, p->mod),
			 img_string(rs->img, p->func), img_string(rs->img, p->name));
	id = mt_trace_add_class(rs->w, name, pl->fields, pl->n);
	rs->class_of[epid] = id;
	return id;
}

struct joined {
	FILE *m;
	int first;
};

static void
join_frame(void *arg, const char *sym)
{
	struct joined *j = arg;

	fprintf(j->m, "%s%s", j->first ? "" : ";", sym);
	j->first = 0;
}

/* A stack rec as "frame;frame;..." (leaf first), malloc'ed. */
static char *
stack_text(struct rec_state *rs, int user, const uint8_t *p, uint32_t size)
{
	char *buf = NULL;
	size_t len = 0;
	struct joined j = { open_memstream(&buf, &len), 1 };

	if (j.m == NULL)
		return NULL;
	mt_stack_frames(mt_consumer_symsrc(rs->c), user, p, size, join_frame, &j);
	fclose(j.m);
	return buf;
}

static char *
sym_text(struct rec_state *rs, uint16_t kind, const uint8_t *d, uint32_t size)
{
	const struct mt_symsrc *syms = mt_consumer_symsrc(rs->c);
	char buf[512];
	uint64_t v = 0;
	int64_t pid = 0;

	if (kind == MT_ACT_SYM || kind == MT_ACT_MOD) {
		memcpy(&v, d, size < 8 ? size : 8);
		mt_sym_format(syms, v, kind == MT_ACT_SYM ? MT_SYM_FUNC : MT_SYM_MOD,
			      buf, sizeof(buf));
	} else {
		if (size > 8) {
			memcpy(&pid, d, 8);
			memcpy(&v, d + 8, 8);
		} else {
			memcpy(&v, d, size < 8 ? size : 8);
		}
		mt_usym_format(syms, pid, v, kind == MT_ACT_USYM ? MT_SYM_FUNC :
			       kind == MT_ACT_UMOD ? MT_SYM_MOD : MT_SYM_PC,
			       buf, sizeof(buf));
	}
	return strdup(buf);
}

/* The value of field i: strings malloc'ed into *owned. */
static void
field_value(struct rec_state *rs, const struct fplan *f, const uint8_t *data,
	    struct mt_trace_value *v, char **owned)
{
	const struct mt_rec *r = f->r;

	*owned = NULL;
	switch (f->how) {
	case FK_INT: {
		uint64_t u = 0;
		int sign = r->size < 8 && (data[r->offset + r->size - 1] & 0x80);

		memcpy(&u, data + r->offset, r->size);
		if (sign && f->symkind)
			u |= ~0ULL << (r->size * 8);
		v->i = (int64_t)u;
		break;
	}
	case FK_STR:
		v->s = *owned = strndup((const char *)data + r->offset, r->size);
		break;
	case FK_MEM:
		v->bytes = data + r->offset;
		break;
	case FK_STACK: case FK_USTACK:
		v->s = *owned = stack_text(rs, f->how == FK_USTACK,
					   data + r->offset, r->size);
		break;
	case FK_SYM:
		v->s = *owned = sym_text(rs, f->symkind, data + r->offset, r->size);
		break;
	case FK_PRINTF:
		v->s = *owned = mt_consumer_format(rs->c, f->action, data);
		break;
	case FK_MSGNAME: {
		struct mt_msgid_name mn;
		int64_t id = 0;

		memcpy(&id, data + r->offset, r->size < 8 ? r->size : 8);
		if (r->size == 4)
			id = (int32_t)id;
		if (rs->msgids)
			mt_msgids_lookup(rs->msgids, (long)id, &mn);
		else
			snprintf(mn.routine, sizeof(mn.routine), "%lld", (long long)id);
		v->s = *owned = strdup(mn.routine);
		break;
	}
	}
}

static void
on_record(void *arg, const struct mt_rechdr *h, const struct mt_probe *p,
	  uint32_t clause, const uint8_t *data)
{
	struct rec_state *rs = arg;
	struct mt_trace_value vals[REC_MAXFIELDS];
	char *owned[REC_MAXFIELDS];
	struct clause_plan *pl;
	int id;

	if (rs->failed || h->epid > rs->img->necbs)
		return;
	if ((id = class_for(rs, h->epid, p, clause)) < 0) {
		rs->failed = 1;
		return;
	}
	if (!rs->have_offset) {
		mt_trace_set_clock_offset(rs->w, (int64_t)(clock_ns(CLOCK_REALTIME) -
							   h->timestamp));
		rs->have_offset = 1;
	}
	pl = &rs->plans[clause];
	memset(vals, 0, sizeof(vals));
	for (uint32_t i = 0; i < pl->n; i++)
		field_value(rs, &pl->f[i], data, &vals[i], &owned[i]);
	if (mt_trace_event(rs->w, h->cpu < rs->cb->ncpus ? h->cpu : 0,
			   h->timestamp, (uint32_t)id, vals) != 0)
		rs->failed = 1;
	for (uint32_t i = 0; i < pl->n; i++)
		free(owned[i]);
}

/* What was traced, for the trace's env (the report shows it). */
static void
rec_env(const struct tool_record *r, struct mt_trace_env *env)
{
	memset(env, 0, sizeof(*env));
	env->program = r->program;
	env->events = r->events;
	env->workload = r->workload;
	env->kernel = r->kernel;
}

static int
record_start(struct tool_record *r, const struct mt_prog *prog,
	     const struct mt_image *img, struct mt_cb *cb,
	     struct mt_consumer *c)
{
	struct rec_state *rs = calloc(1, sizeof(*rs));
	struct mt_trace_env env;
	char err[512];

	if (rs == NULL)
		return -1;
	rs->prog = prog;
	rs->img = img;
	rs->c = c;
	rs->cb = cb;
	rs->mask = r->mask;
	rs->ngen = r->nclauses;
	rs->start_ns = clock_ns(CLOCK_MONOTONIC);
	rs->class_of = malloc((img->necbs + 1) * sizeof(int));
	rs->plans = calloc(prog->nclauses + 1, sizeof(*rs->plans));
	rs->seen_drops = calloc(cb->ncpus + 1, sizeof(uint64_t));
	if (!rs->class_of || !rs->plans || !rs->seen_drops) {
		free(rs->class_of);
		free(rs->plans);
		free(rs->seen_drops);
		free(rs);
		return -1;
	}
	for (uint32_t i = 0; i <= img->necbs; i++)
		rs->class_of[i] = -1;
	if ((rs->mask & EV_IPC) && (rs->msgids = mt_msgids_open(MT_MSGIDS_SYSDIR,
			r->opts->msgids, r->opts->nmsgids, err, sizeof(err))) == NULL)
		fprintf(stderr, "machtrace: record: msgids: %s (msg_name "
			"shows the id)\n", err);
	rec_env(r, &env);
	rs->w = mt_trace_create_session(r->dir, cb->ncpus ? cb->ncpus : 1,
					&env, err, sizeof(err));
	if (rs->w == NULL) {
		fprintf(stderr, "machtrace: record: %s\n", err);
		mt_msgids_free(rs->msgids);
		free(rs->class_of);
		free(rs->plans);
		free(rs->seen_drops);
		free(rs);
		return -1;
	}
	r->rs = rs;
	mt_consumer_set_rechook(c, on_record, rs);
	return 0;
}

/* Drops since the last call into the streams; progress on a terminal. */
static void
record_poll(struct tool_record *r)
{
	struct rec_state *rs = r->rs;
	const struct mt_cpubuf *b;
	uint64_t now;

	if (rs == NULL)
		return;
	b = (const struct mt_cpubuf *)((const char *)rs->cb + rs->cb->cpubuf_off);
	for (uint32_t i = 0; i < rs->cb->ncpus; i++) {
		uint64_t d = __atomic_load_n(&b[i].drops, __ATOMIC_ACQUIRE);

		if (d > rs->seen_drops[i]) {
			mt_trace_discarded(rs->w, i, d - rs->seen_drops[i]);
			rs->seen_drops[i] = d;
		}
	}
	if (!isatty(2) || (now = clock_ns(CLOCK_MONOTONIC)) < rs->next_progress)
		return;
	rs->next_progress = now + 250000000ULL;
	fprintf(stderr, "\rmachtrace: recording: %.1f s, %llu events, %llu dropped ",
		(now - rs->start_ns) / 1e9,
		(unsigned long long)mt_trace_nevents(rs->w),
		(unsigned long long)mt_trace_ndiscarded(rs->w));
}

static void
free_rec(struct rec_state *rs)
{
	for (uint32_t i = 0; i < rs->prog->nclauses; i++) {
		for (uint32_t k = 0; k < rs->plans[i].n; k++)
			free(rs->plans[i].fields[k].name);
		free(rs->plans[i].fields);
		free(rs->plans[i].f);
	}
	free(rs->plans);
	free(rs->class_of);
	free(rs->seen_drops);
	mt_msgids_free(rs->msgids);
	free(rs);
}

/* Close the trace and say what it holds, with the tracer's own cost when
   the target timed its firings (the kernel's does); -1 after a write
   error. */
static int
record_finish(struct tool_record *r, int timed)
{
	struct rec_state *rs = r->rs;
	uint64_t n, d, fires, pns;
	char err[512];
	int rc = 0;

	if (rs == NULL)
		return 0;
	record_poll(r);
	if (isatty(2))
		fputc('\n', stderr);
	n = mt_trace_nevents(rs->w);
	d = mt_trace_ndiscarded(rs->w);
	mt_session_probe_cost(rs->cb, &fires, &pns);
	if (timed)
		mt_trace_set_probe_cost(rs->w, fires, pns);
	if (rs->failed) {
		fprintf(stderr, "machtrace: record: writing the trace in %s failed\n",
			r->dir);
		mt_trace_abort(rs->w);
		rc = -1;
	} else if (mt_trace_close(rs->w, err, sizeof(err)) != 0) {
		fprintf(stderr, "machtrace: record: %s\n", err);
		rc = -1;
	} else {
		fprintf(stderr, "machtrace: recorded %llu events, %llu dropped, "
			"in %s\n", (unsigned long long)n, (unsigned long long)d,
			r->dir);
	}
	free_rec(rs);
	r->rs = NULL;
	return rc;
}

static int
hook_start(void *arg, const struct mt_prog *prog, const struct mt_image *img,
	   struct mt_target *t, struct mt_consumer *c)
{
	struct tool_record *r = arg;

	if (record_start(r, prog, img, t->ops->cb(t), c) != 0)
		return -1;
	/* the kernel times its firings: the trace records that cost */
	r->rs->timed = strcmp(t->ops->name, "mach") == 0;
	return 0;
}

static int
hook_poll(void *arg, struct mt_consumer *c)
{
	record_poll(arg);
	return 0;
}

static int
hook_finish(void *arg, struct mt_consumer *c, int failed)
{
	struct tool_record *r = arg;

	return r->rs && record_finish(r, r->rs->timed) != 0;
}

void
tool_record_client(struct tool_record *r, struct mt_session_client *h)
{
	memset(h, 0, sizeof(*h));
	h->arg = r;
	h->start = hook_start;
	h->poll = hook_poll;
	h->finish = hook_finish;
	h->final = 1;
}
