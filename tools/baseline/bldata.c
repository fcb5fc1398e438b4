/*
 * machtrace baseline's data (baseline.h): a measurement's runs, their
 * metrics and stacks, their JSON file and the differential flame graphs
 * of two (blcompare.c compares their metrics).
 *
 * The file (version 2: version 1 held one run, which gave no run-to-run
 * spread to test against, and is refused):
 *   {"machtrace-baseline": 2, "workload": "...", "seconds": S,
 *    "icount": "shift=0", "kernel": "FILE" (only when --kernel was given),
 *    "runs": [{"metrics": [{"name": "...", "kind": "latency"|"count",
 *                           "samples": [N, ...]}, ...]}, ...],
 *    "stacks": [{"stack": "a;b;c", "count": N}, ...]}
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "tools/baseline/baseline.h"
#include "machtrace/session.h"
#include "machtrace/json.h"
#include "machtrace/export.h"
#include "machtrace/mach.h"

#define BL_VERSION	2

void
bl_set_init(struct bl_set *s, const char *workload, long seconds, const char *icount)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->workload, sizeof(s->workload), "%s", workload ? workload : "");
	snprintf(s->icount, sizeof(s->icount), "%s", icount ? icount : "");
	s->seconds = seconds;
}

void
bl_set_free(struct bl_set *s)
{
	for (size_t r = 0; r < s->nruns; r++) {
		for (size_t i = 0; i < s->run[r].nmetrics; i++) {
			free(s->run[r].m[i].name);
			free(s->run[r].m[i].v);
		}
		free(s->run[r].m);
	}
	for (size_t i = 0; i < s->nstacks; i++)
		free(s->st[i].stack);
	free(s->run);
	free(s->st);
	s->run = NULL, s->st = NULL;
	s->nruns = s->nstacks = 0;
}

struct bl_run *
bl_run_add(struct bl_set *s)
{
	if (s->nruns == s->rcap) {
		size_t cap = s->rcap ? 2 * s->rcap : 8;
		struct bl_run *n = realloc(s->run, cap * sizeof(*n));

		if (n == NULL)
			return NULL;
		s->run = n, s->rcap = cap;
	}
	memset(&s->run[s->nruns], 0, sizeof(s->run[0]));
	return &s->run[s->nruns++];
}

struct bl_metric *
bl_metric(const struct bl_run *r, const char *name)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (strcmp(r->m[i].name, name) == 0)
			return &r->m[i];
	return NULL;
}

int
bl_sample_add(struct bl_run *r, const char *name, enum bl_kind kind, double v)
{
	struct bl_metric *m = bl_metric(r, name);

	if (m == NULL) {
		if (r->nmetrics == r->mcap) {
			size_t cap = r->mcap ? 2 * r->mcap : 16;
			struct bl_metric *n = realloc(r->m, cap * sizeof(*n));

			if (n == NULL)
				return -1;
			r->m = n, r->mcap = cap;
		}
		m = &r->m[r->nmetrics];
		memset(m, 0, sizeof(*m));
		if ((m->name = strdup(name)) == NULL)
			return -1;
		m->kind = kind;
		r->nmetrics++;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		double *n = realloc(m->v, cap * sizeof(*n));

		if (n == NULL)
			return -1;
		m->v = n, m->cap = cap;
	}
	m->v[m->n++] = v;
	return 0;
}

int
bl_stack_add(struct bl_set *s, const char *stack, uint64_t count)
{
	for (size_t i = 0; i < s->nstacks; i++)
		if (strcmp(s->st[i].stack, stack) == 0) {
			s->st[i].count += count;
			return 0;
		}
	if (s->nstacks == s->scap) {
		size_t cap = s->scap ? 2 * s->scap : 64;
		struct bl_stack *n = realloc(s->st, cap * sizeof(*n));

		if (n == NULL)
			return -1;
		s->st = n, s->scap = cap;
	}
	if ((s->st[s->nstacks].stack = strdup(stack)) == NULL)
		return -1;
	s->st[s->nstacks++].count = count;
	return 0;
}

/* The message in err; -1. */
static int
seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static void
write_metrics(FILE *f, const struct bl_run *r)
{
	fprintf(f, "{\"metrics\": [");
	for (size_t i = 0; i < r->nmetrics; i++) {
		fprintf(f, "%s\n   {\"name\": ", i ? "," : "");
		mt_json_escape(f, r->m[i].name, strlen(r->m[i].name));
		fprintf(f, ", \"kind\": \"%s\", \"samples\": [",
			r->m[i].kind == BL_LATENCY ? "latency" : "count");
		for (size_t k = 0; k < r->m[i].n; k++)
			fprintf(f, "%s%.17g", k ? ", " : "", r->m[i].v[k]);
		fprintf(f, "]}");
	}
	fprintf(f, "]}");
}

int
bl_write(const struct bl_set *s, const char *path, char *err, size_t len)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL) {
		seterr(err, len, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"machtrace-baseline\": %d, \"workload\": ", BL_VERSION);
	mt_json_escape(f, s->workload, strlen(s->workload));
	fprintf(f, ", \"seconds\": %ld, \"icount\": ", s->seconds);
	mt_json_escape(f, s->icount, strlen(s->icount));
	if (s->kernel[0]) {
		fprintf(f, ", \"kernel\": ");
		mt_json_escape(f, s->kernel, strlen(s->kernel));
	}
	fprintf(f, ",\n \"runs\": [");
	for (size_t r = 0; r < s->nruns; r++) {
		fprintf(f, "%s\n  ", r ? "," : "");
		write_metrics(f, &s->run[r]);
	}
	fprintf(f, "],\n \"stacks\": [");
	for (size_t i = 0; i < s->nstacks; i++) {
		fprintf(f, "%s\n  {\"stack\": ", i ? "," : "");
		mt_json_escape(f, s->st[i].stack, strlen(s->st[i].stack));
		fprintf(f, ", \"count\": %llu}", (unsigned long long)s->st[i].count);
	}
	fprintf(f, "]}\n");
	if (fflush(f) != 0 || ferror(f)) {
		fclose(f);
		unlink(tmp);
		seterr(err, len, "cannot write %s", tmp);
		return -1;
	}
	fclose(f);
	if (rename(tmp, path) != 0) {
		seterr(err, len, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * Reading.  The file is anyone's, so mt_json_read parses it (its size,
 * depth and numbers bounded, duplicate keys refused) and every field is held to what bl_write writes: the keys
 * above and no others, strings that fit the set's buffers, counts and
 * samples whole numbers from 0 to 2^53 (exact in a double), seconds as
 * -d allows, an icount mt_icount_check accepts, 2 to BL_MAX_RUNS runs.
 * A byte that is not UTF-8 (written \u00XX) reads back as U+00XX.
 */
/* A baseline file's size at most (its stacks are most of it). */
#define BL_MAX_FILE	(64u << 20)

/* A string of 1 to size-1 bytes into buf, else -1. */
static int
jtext(const char *s, char *buf, size_t size)
{
	if (s[0] == '\0' || strlen(s) >= size)
		return -1;
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

static int
read_metric(json_t *jm, struct bl_run *r, char *err, size_t len)
{
	const char *name, *kind;
	char nbuf[1024];
	json_t *samples, *v;
	json_error_t e;
	size_t i;
	uint64_t x;

	if (json_unpack_ex(jm, &e, JSON_STRICT, "{s:s, s:s, s:o}", "name", &name,
			   "kind", &kind, "samples", &samples) != 0)
		return seterr(err, len, "a metric: %s", e.text);
	if (jtext(name, nbuf, sizeof(nbuf)) != 0)
		return seterr(err, len, "a metric's name is empty or longer than %zu bytes",
			      sizeof(nbuf) - 1);
	if (strcmp(kind, "latency") != 0 && strcmp(kind, "count") != 0)
		return seterr(err, len, "metric '%s': kind '%.32s' is neither latency nor count",
			      name, kind);
	if (!json_is_array(samples) || json_array_size(samples) == 0)
		return seterr(err, len, "metric '%s': no samples", name);
	json_array_foreach(samples, i, v) {
		if (mt_json_whole(v, MT_JSON_MAX_WHOLE, &x) != 0)
			return seterr(err, len, "metric '%s': sample %zu is not a whole number "
				      "0 to 2^53", name, i + 1);
		if (bl_sample_add(r, name, kind[0] == 'l' ? BL_LATENCY : BL_COUNT,
				  (double)x) != 0)
			return seterr(err, len, "out of memory");
	}
	return 0;
}

static int
read_runs(json_t *runs, struct bl_set *s, char *err, size_t len)
{
	json_t *jr, *metrics, *jm;
	json_error_t e;
	size_t i, k;

	if (!json_is_array(runs) || json_array_size(runs) < 2 ||
	    json_array_size(runs) > BL_MAX_RUNS)
		return seterr(err, len, "\"runs\" is not a list of 2 to %d runs", BL_MAX_RUNS);
	json_array_foreach(runs, i, jr) {
		struct bl_run *r = bl_run_add(s);

		if (r == NULL)
			return seterr(err, len, "out of memory");
		if (json_unpack_ex(jr, &e, JSON_STRICT, "{s:o}", "metrics", &metrics) != 0 ||
		    !json_is_array(metrics))
			return seterr(err, len, "run %zu: not {\"metrics\": [...]}", i + 1);
		json_array_foreach(metrics, k, jm)
			if (read_metric(jm, r, err, len) != 0)
				return -1;
	}
	return 0;
}

static int
read_stacks(json_t *stacks, struct bl_set *s, char *err, size_t len)
{
	const char *stack;
	char sbuf[8192];
	json_t *js, *count;
	json_error_t e;
	size_t i;
	uint64_t n;

	if (!json_is_array(stacks))
		return seterr(err, len, "\"stacks\" is not a list");
	json_array_foreach(stacks, i, js) {
		if (json_unpack_ex(js, &e, JSON_STRICT, "{s:s, s:o}", "stack", &stack,
				   "count", &count) != 0)
			return seterr(err, len, "stack %zu: %s", i + 1, e.text);
		if (jtext(stack, sbuf, sizeof(sbuf)) != 0)
			return seterr(err, len, "stack %zu is empty or longer than %zu bytes",
				      i + 1, sizeof(sbuf) - 1);
		if (mt_json_whole(count, MT_JSON_MAX_WHOLE, &n) != 0)
			return seterr(err, len, "stack %zu: the count is not a whole number 0 "
				      "to 2^53", i + 1);
		if (bl_stack_add(s, stack, n) != 0)
			return seterr(err, len, "out of memory");
	}
	return 0;
}

/* The set in root, its version already checked. */
static int
read_set(json_t *root, struct bl_set *s, char *err, size_t len)
{
	const char *workload, *icount, *kernel = NULL;
	json_int_t version;
	json_t *seconds, *runs, *stacks;
	json_error_t e;
	char why[256];
	uint64_t secs;

	if (json_unpack_ex(root, &e, JSON_STRICT, "{s:I, s:s, s:o, s:s, s?s, s:o, s:o}",
			   "machtrace-baseline", &version, "workload", &workload,
			   "seconds", &seconds, "icount", &icount, "kernel", &kernel,
			   "runs", &runs, "stacks", &stacks) != 0)
		return seterr(err, len, "%s", e.text);
	if (kernel && jtext(kernel, s->kernel, sizeof(s->kernel)) != 0)
		return seterr(err, len, "the kernel is empty or longer than %zu bytes",
			      sizeof(s->kernel) - 1);
	if (jtext(workload, s->workload, sizeof(s->workload)) != 0)
		return seterr(err, len, "the workload is empty or longer than %zu bytes",
			      sizeof(s->workload) - 1);
	if (strncmp(workload, "vm:", 3) != 0 &&
	    mt_workload_check(workload, why, sizeof(why)) != 0)
		return seterr(err, len, "%s", why);
	if (mt_json_whole(seconds, MT_SESSION_MAX_SECONDS, &secs) != 0)
		return seterr(err, len, "\"seconds\" is not a whole number 0 to %d",
			      MT_SESSION_MAX_SECONDS);
	s->seconds = (long)secs;
	if (icount[0] && (mt_icount_check(icount, why, sizeof(why)) != 0 ||
			  jtext(icount, s->icount, sizeof(s->icount)) != 0))
		return seterr(err, len, "%s", why);
	if (read_runs(runs, s, err, len) != 0)
		return -1;
	return read_stacks(stacks, s, err, len);
}

int
bl_read(struct bl_set *s, const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	json_t *root, *version;
	long long v;
	char why[512];
	int rc = -1;

	bl_set_init(s, "", 0, "");
	if (f == NULL) {
		seterr(err, len, errno == ENOENT ? "no baseline %s (save it first: "
		       "machtrace baseline save NAME)" : "cannot read %s: %s", path,
		       strerror(errno));
		return -1;
	}
	root = mt_json_read(f, BL_MAX_FILE, why, sizeof(why));
	fclose(f);
	version = json_object_get(root, "machtrace-baseline");
	v = json_is_integer(version) ? json_integer_value(version) : -1;
	if (v == 1) {
		seterr(err, len, "%s was saved by an older machtrace (one run, file version "
		       "1): save it again, the comparison needs several runs", path);
	} else {
		/* root NULL: mt_json_read said why */
		if (root != NULL && v != BL_VERSION)
			snprintf(why, sizeof(why), v < 0 ? "no \"machtrace-baseline\": VERSION" :
				 "file version %lld, this machtrace reads %d", v, BL_VERSION);
		else if (root != NULL)
			rc = read_set(root, s, why, sizeof(why));
		if (rc != 0)
			seterr(err, len, "%s is not a machtrace baseline: %s", path, why);
	}
	json_decref(root);
	if (rc != 0)
		bl_set_free(s);
	return rc;
}

/* Both measurements' stacks, merged: count from one, other from the other. */
static struct mt_flame_diff *
merge_stacks(const struct bl_set *a, const struct bl_set *b, size_t *n)
{
	struct mt_flame_diff *v = calloc(a->nstacks + b->nstacks + 1, sizeof(*v));
	size_t k = 0;

	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < a->nstacks; i++)
		v[k].stack = a->st[i].stack, v[k++].count = a->st[i].count;
	for (size_t i = 0; i < b->nstacks; i++) {
		size_t j = 0;

		while (j < k && strcmp(v[j].stack, b->st[i].stack) != 0)
			j++;
		if (j == k)
			v[k++].stack = b->st[i].stack;
		v[j].other += b->st[i].count;
	}
	*n = k;
	return v;
}

static int
flame_one(const struct bl_set *w, const struct bl_set *o, const char *path,
	  const char *title, char *err, size_t len)
{
	struct mt_flame_diff *v;
	size_t n = 0;
	FILE *f;
	int rc;

	if ((v = merge_stacks(w, o, &n)) == NULL) {
		seterr(err, len, "out of memory");
		return -1;
	}
	if ((f = fopen(path, "w")) == NULL) {
		seterr(err, len, "cannot create %s: %s", path, strerror(errno));
		free(v);
		return -1;
	}
	rc = mt_flame_diff_svg(f, title, v, n);
	if (fclose(f) != 0 || rc != 0) {
		seterr(err, len, "cannot write %s", path);
		rc = -1;
	}
	free(v);
	return rc;
}

int
bl_flame_both(const struct bl_set *old, const struct bl_set *cur,
	      const char *prefix, char *err, size_t len)
{
	char path[4300];

	snprintf(path, sizeof(path), "%s.new.svg", prefix);
	if (flame_one(cur, old, path, "machtrace baseline: this run against the "
		      "baseline (red: grew)", err, len) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s.old.svg", prefix);
	return flame_one(old, cur, path, "machtrace baseline: the baseline against "
			 "this run (red: a larger share before, shrank since)", err, len);
}
