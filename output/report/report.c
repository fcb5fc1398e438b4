/*
 * The report's model: per-name event counts, on-CPU slices per thread,
 * RPC and trap latencies, stack samples as a call tree.  Every rp_* call
 * returns 0, or -1 with errno ENOMEM; the model stays consistent either way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"

/*
 * The index of ctx's key in m (values: index + 1); when absent and add is
 * set, add(ctx) appends the element.  Returns the index or -1.
 */
static long
map_find(struct mt_hmap *m, uint64_t h, mt_hmap_eq eq, long (*add)(void *),
	 void *ctx)
{
	uintptr_t v = mt_hmap_find(m, h, eq, ctx);
	long idx;

	if (v)
		return (long)v - 1;
	if (add == NULL)
		return -1;
	idx = add(ctx);
	if (idx < 0 || mt_hmap_put(m, h, (uintptr_t)idx + 1) != 0)
		return -1;
	return idx;
}

struct rp *
rp_new(void)
{
	struct rp *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->t0 = UINT64_MAX;
	r->root.name = (char *)"all";
	return r;
}

static void
free_node(struct rp_node *n)
{
	for (size_t i = 0; i < n->nkids; i++) {
		free_node(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	if (n->name != NULL && n->owned)
		free(n->name);
}

void
rp_free(struct rp *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->nmeta; i++) {
		free(r->meta[i].key);
		free(r->meta[i].value);
	}
	free(r->meta);
	for (size_t i = 0; i < r->nnames; i++)
		free(r->names[i].name);
	free(r->names);
	mt_hmap_free(&r->name_map);
	for (size_t i = 0; i < r->nthreads; i++) {
		free(r->threads[i].comm);
		free(r->threads[i].slices);
	}
	free(r->threads);
	mt_hmap_free(&r->thread_map);
	for (int k = 0; k < 2; k++) {
		struct rp_lat_table *t = &r->lat[k];

		for (size_t i = 0; i < t->nrows; i++) {
			free(t->rows[i].name);
			free(t->rows[i].lat);
		}
		free(t->rows);
		mt_hmap_free(&t->row_map);
		free(t->by_tid.pend);
		mt_hmap_free(&t->by_tid.map);
		free(t->by_port.pend);
		mt_hmap_free(&t->by_port.map);
		free(t->points);
	}
	free(r->cpus);
	free_node(&r->root);
	free(r);
}

static char *
dupstr(const char *s)
{
	return strdup(s != NULL ? s : "");
}

int
rp_meta(struct rp *r, const char *key, const char *value)
{
	struct rp_meta *m;

	if (MT_VEC_ROOM(r->meta, r->nmeta, r->meta_cap, 16))
		return -1;
	m = &r->meta[r->nmeta];
	m->key = dupstr(key);
	m->value = dupstr(value);
	if (m->key == NULL || m->value == NULL) {
		free(m->key);
		free(m->value);
		return -1;
	}
	r->nmeta++;
	return 0;
}

static struct rp_cpu *
get_cpu(struct rp *r, int cpu)
{
	if (cpu < 0)
		cpu = 0;
	if ((size_t)cpu >= r->ncpus) {
		size_t n = (size_t)cpu + 1;
		struct rp_cpu *c = realloc(r->cpus, n * sizeof(*c));

		if (c == NULL)
			return NULL;
		memset(c + r->ncpus, 0, (n - r->ncpus) * sizeof(*c));
		r->cpus = c;
		r->ncpus = n;
	}
	return &r->cpus[cpu];
}

struct name_ctx {
	struct rp *r;
	const char *name;
};

static int
name_eq(const void *p, uintptr_t v)
{
	const struct name_ctx *c = p;

	return strcmp(c->r->names[v - 1].name, c->name) == 0;
}

static long
name_add(void *p)
{
	struct name_ctx *c = p;
	struct rp *r = c->r;

	if (MT_VEC_ROOM(r->names, r->nnames, r->names_cap, 16))
		return -1;
	r->names[r->nnames].name = strdup(c->name);
	if (r->names[r->nnames].name == NULL)
		return -1;
	r->names[r->nnames].count = 0;
	return (long)r->nnames++;
}

int
rp_event(struct rp *r, uint64_t ts, int cpu, const char *name)
{
	struct name_ctx c = { r, name };
	struct rp_cpu *pc = get_cpu(r, cpu);
	long i;

	if (pc == NULL)
		return -1;
	i = map_find(&r->name_map, mt_hash_str(name), name_eq, name_add, &c);
	if (i < 0)
		return -1;
	r->names[i].count++;
	r->nevents++;
	pc->nevents++;
	if (ts < r->t0)
		r->t0 = ts;
	if (ts > r->t1)
		r->t1 = ts;
	return 0;
}

int
rp_drops(struct rp *r, int cpu, uint64_t discarded)
{
	struct rp_cpu *pc = get_cpu(r, cpu);

	if (pc == NULL)
		return -1;
	pc->discarded += discarded;
	r->have_drops = 1;
	return 0;
}

struct thread_ctx {
	struct rp *r;
	int64_t tid;
};

static int
thread_eq(const void *p, uintptr_t v)
{
	const struct thread_ctx *c = p;

	return c->r->threads[v - 1].tid == c->tid;
}

static long
thread_add(void *p)
{
	struct thread_ctx *c = p;
	struct rp *r = c->r;

	if (MT_VEC_ROOM(r->threads, r->nthreads, r->threads_cap, 16))
		return -1;
	memset(&r->threads[r->nthreads], 0, sizeof(r->threads[0]));
	r->threads[r->nthreads].tid = c->tid;
	return (long)r->nthreads++;
}

static struct rp_thread *
get_thread(struct rp *r, int64_t tid, const char *comm)
{
	struct thread_ctx c = { r, tid };
	struct rp_thread *t;
	long i;

	i = map_find(&r->thread_map, mt_hash_u64((uint64_t)tid), thread_eq,
		     thread_add, &c);
	if (i < 0)
		return NULL;
	t = &r->threads[i];
	/* A thread keeps the last name it was seen with (exec renames). */
	if (comm != NULL && *comm &&
	    (t->comm == NULL || strcmp(t->comm, comm) != 0)) {
		char *s = strdup(comm);

		if (s == NULL)
			return NULL;
		free(t->comm);
		t->comm = s;
	}
	return t;
}

static int
add_slice(struct rp *r, int64_t tid, uint64_t start, uint64_t end, int cpu)
{
	struct rp_thread *t = get_thread(r, tid, NULL);
	struct rp_slice *s;

	if (t == NULL)
		return -1;
	if (MT_VEC_ROOM(t->slices, t->nslices, t->slices_cap, 16))
		return -1;
	s = &t->slices[t->nslices++];
	s->start = start;
	s->end = end;
	s->cpu = cpu;
	t->oncpu += end - start;
	r->nslices++;
	return 0;
}

/*
 * A CPU's running thread is known from its first sched_switch on: before
 * that nothing says who ran, so no slice is drawn there.  A slice still
 * open at the end of the trace is closed by rp_finish at the last event.
 */
int
rp_sched_switch(struct rp *r, uint64_t ts, int cpu, int64_t prev_tid,
		const char *prev_comm, int64_t next_tid, const char *next_comm)
{
	struct rp_cpu *pc = get_cpu(r, cpu);

	if (pc == NULL || get_thread(r, prev_tid, prev_comm) == NULL ||
	    get_thread(r, next_tid, next_comm) == NULL)
		return -1;
	if (pc->running && pc->cur_tid == prev_tid && ts >= pc->cur_since &&
	    add_slice(r, prev_tid, pc->cur_since, ts, cpu) != 0)
		return -1;
	pc->running = 1;
	pc->cur_tid = next_tid;
	pc->cur_since = ts;
	r->nswitches++;
	return 0;
}

int64_t
rp_cpu_thread(struct rp *r, int cpu)
{
	if (cpu < 0 || (size_t)cpu >= r->ncpus || !r->cpus[cpu].running)
		return -1;
	return r->cpus[cpu].cur_tid;
}

struct row_ctx {
	struct rp_lat_table *t;
	const char *name;
	size_t len;
};

static int
row_eq(const void *p, uintptr_t v)
{
	const struct row_ctx *c = p;
	const char *n = c->t->rows[v - 1].name;

	return strncmp(n, c->name, c->len) == 0 && n[c->len] == '\0';
}

static long
row_add(void *p)
{
	struct row_ctx *c = p;
	struct rp_lat_table *t = c->t;

	if (MT_VEC_ROOM(t->rows, t->nrows, t->rows_cap, 16))
		return -1;
	memset(&t->rows[t->nrows], 0, sizeof(t->rows[0]));
	t->rows[t->nrows].name = strndup(c->name, c->len);
	if (t->rows[t->nrows].name == NULL)
		return -1;
	return (long)t->nrows++;
}

static struct rp_row *
get_row(struct rp_lat_table *t, const char *name, size_t len)
{
	struct row_ctx c = { t, name, len };
	uint64_t h = mt_hash_bytes(name, len, MT_HASH_INIT);
	long i = map_find(&t->row_map, h, row_eq, row_add, &c);
	return i < 0 ? NULL : &t->rows[i];
}

struct pend_ctx {
	struct rp_pendtab *t;
	int64_t key;
};

static int
pend_eq(const void *p, uintptr_t v)
{
	const struct pend_ctx *c = p;

	return c->t->pend[v - 1].key == c->key;
}

static long
pend_add(void *p)
{
	struct pend_ctx *c = p;
	struct rp_pendtab *t = c->t;

	if (MT_VEC_ROOM(t->pend, t->npend, t->pend_cap, 16))
		return -1;
	memset(&t->pend[t->npend], 0, sizeof(t->pend[0]));
	t->pend[t->npend].key = c->key;
	return (long)t->npend++;
}

static struct rp_pend *
get_pend(struct rp_pendtab *t, int64_t key)
{
	struct pend_ctx c = { t, key };
	long i = map_find(&t->map, mt_hash_u64((uint64_t)key), pend_eq, pend_add, &c);

	return i < 0 ? NULL : &t->pend[i];
}

/* Record a completed call of row: its latency and a heatmap point. */
static int
add_latency(struct rp_lat_table *t, struct rp_row *row, uint64_t start,
	    uint64_t end)
{
	struct rp_point *pt;

	if (MT_VEC_ROOM(row->lat, row->nlat, row->lat_cap, 16) ||
	    MT_VEC_ROOM(t->points, t->npoints, t->points_cap, 16))
		return -1;
	row->lat[row->nlat++] = end - start;
	pt = &t->points[t->npoints++];
	pt->ts = end;
	pt->lat = end - start;
	return 0;
}

/*
 * An RPC's latency is its client's wait: from the send of request ROUTINE
 * to the receive of "ROUTINE-reply".  They are paired by the reply port
 * (the request's local port is the reply's remote port: the same kernel
 * port object) when the events carry ports, else by the thread (a
 * receive's thread is not always the receiver: the fast handoff path
 * fires in the sender).  A new request on the same key replaces the
 * pending one.
 */
int
rp_ipc(struct rp *r, uint64_t ts, int is_send, int64_t tid,
       const char *routine, uint64_t remote_port, uint64_t local_port)
{
	struct rp_lat_table *t = &r->lat[RP_LAT_RPC];
	size_t len = strlen(routine);
	int is_reply = len > 6 && strcmp(routine + len - 6, "-reply") == 0;
	uint64_t port = is_send ? local_port : remote_port;
	struct rp_row *row, *req;
	struct rp_pend *p;

	row = get_row(t, routine, len);
	if (row == NULL)
		return -1;
	if (is_send)
		row->sends++;
	else
		row->receives++;
	t->present = 1;
	if (is_send == is_reply || (port == 0 && tid < 0))
		return 0;
	p = port != 0 ? get_pend(&t->by_port, (int64_t)port) :
		get_pend(&t->by_tid, tid);
	if (p == NULL)
		return -1;
	if (is_send) {
		p->row = (long)(row - t->rows);
		p->ts = ts;
		p->active = 1;
		return 0;
	}
	if (!p->active || p->ts > ts)
		return 0;
	req = &t->rows[p->row];
	if (strlen(req->name) != len - 6 ||
	    strncmp(req->name, routine, len - 6) != 0)
		return 0;
	p->active = 0;
	return add_latency(t, req, p->ts, ts);
}

/* A trap's latency: entry to the exit of the same trap by the thread. */
int
rp_syscall(struct rp *r, uint64_t ts, int is_entry, int64_t tid,
	   const char *trap)
{
	struct rp_lat_table *t = &r->lat[RP_LAT_TRAP];
	struct rp_row *row = get_row(t, trap, strlen(trap));
	struct rp_pend *p;

	if (row == NULL)
		return -1;
	t->present = 1;
	if (is_entry)
		row->sends++;
	else
		row->receives++;
	if (tid < 0)
		return 0;
	p = get_pend(&t->by_tid, tid);
	if (p == NULL)
		return -1;
	if (is_entry) {
		p->row = (long)(row - t->rows);
		p->ts = ts;
		p->active = 1;
	} else if (p->active && &t->rows[p->row] == row && p->ts <= ts) {
		p->active = 0;
		return add_latency(t, row, p->ts, ts);
	}
	return 0;
}

static struct rp_node *
child(struct rp_node *n, const char *name)
{
	struct rp_node *k;

	for (size_t i = 0; i < n->nkids; i++)
		if (strcmp(n->kids[i]->name, name) == 0)
			return n->kids[i];
	if (MT_VEC_ROOM(n->kids, n->nkids, n->kids_cap, 16))
		return NULL;
	k = calloc(1, sizeof(*k));
	if (k == NULL)
		return NULL;
	k->name = strdup(name);
	if (k->name == NULL) {
		free(k);
		return NULL;
	}
	k->owned = 1;
	n->kids[n->nkids++] = k;
	return k;
}

int
rp_stack(struct rp *r, const char *const *frames, int n, uint64_t count)
{
	struct rp_node *node = &r->root;

	node->value += count;
	for (int i = n - 1; i >= 0; i--) {
		node = child(node, frames[i]);
		if (node == NULL)
			return -1;
		node->value += count;
	}
	r->nsamples += count;
	return 0;
}
