/*
 * machtrace baseline's data (baseline.h): a measurement's runs, their
 * metrics and stacks, their JSON file and the differential flame graphs
 * of two (blcompare.c compares their metrics).
 *
 * The file (version 2: version 1 held one run, which gave no run-to-run
 * spread to test against, and is refused):
 *   {"machtrace-baseline": 2, "workload": "...", "seconds": S,
 *    "icount": "shift=0",
 *    "runs": [{"metrics": [{"name": "...", "kind": "latency"|"count",
 *                           "samples": [N, ...]}, ...]}, ...],
 *    "stacks": [{"stack": "a;b;c", "count": N}, ...]}
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "baseline.h"
#include "machtrace/consumer.h"
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

static void
seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
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
 * Reading: a small strict JSON parser over the file's text, for the
 * layout above; anything else is "corrupt".
 */
struct jp {
	const char *p;
	int bad;
	int version;		/* "machtrace-baseline", the first key */
};

static void
ws(struct jp *j)
{
	while (isspace((unsigned char)*j->p))
		j->p++;
}

static int
eat(struct jp *j, char c)
{
	ws(j);
	if (*j->p != c) {
		j->bad = 1;
		return 0;
	}
	j->p++;
	return 1;
}

static int
peek(struct jp *j, char c)
{
	ws(j);
	return *j->p == c;
}

/* A string into buf: the escapes mt_json_escape writes (\uXXXX below
   0x100, a byte that is not UTF-8 among them) and \/. */
static void
jstr(struct jp *j, char *buf, size_t len)
{
	size_t n = 0;

	if (!eat(j, '"'))
		return;
	while (*j->p && *j->p != '"') {
		char c = *j->p++;

		if (c == '\\') {
			unsigned v;

			switch (c = *j->p++) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '"': case '\\': case '/': break;
			case 'u':
				if (sscanf(j->p, "%4x", &v) != 1 || v >= 0x100) {
					j->bad = 1;
					return;
				}
				c = (char)v;
				j->p += 4;
				break;
			default:
				j->bad = 1;
				return;
			}
		}
		if (n + 1 < len)
			buf[n++] = c;
		else
			j->bad = 1;
	}
	buf[n] = '\0';
	eat(j, '"');
}

static double
jnum(struct jp *j)
{
	char *end;
	double v;

	ws(j);
	v = strtod(j->p, &end);
	if (end == j->p || !isfinite(v))
		j->bad = 1;
	j->p = end;
	return v;
}

static void
jmetric(struct jp *j, struct bl_run *r)
{
	char key[64], name[1024] = "", kind[32] = "";
	int have_samples = 0;

	eat(j, '{');
	while (!j->bad && !peek(j, '}')) {
		jstr(j, key, sizeof(key));
		eat(j, ':');
		if (strcmp(key, "name") == 0)
			jstr(j, name, sizeof(name));
		else if (strcmp(key, "kind") == 0)
			jstr(j, kind, sizeof(kind));
		else if (strcmp(key, "samples") == 0 && name[0] &&
			 (strcmp(kind, "latency") == 0 || strcmp(kind, "count") == 0)) {
			enum bl_kind k = kind[0] == 'l' ? BL_LATENCY : BL_COUNT;

			eat(j, '[');
			while (!j->bad && !peek(j, ']')) {
				double v = jnum(j);

				if (!j->bad && bl_sample_add(r, name, k, v) != 0)
					j->bad = 1;
				have_samples = 1;
				if (!peek(j, ']'))
					eat(j, ',');
			}
			eat(j, ']');
		} else
			j->bad = 1;
		if (!peek(j, '}'))
			eat(j, ',');
	}
	eat(j, '}');
	if (!have_samples)
		j->bad = 1;
}

static void
jstack(struct jp *j, struct bl_set *s)
{
	char key[64], stack[8192] = "";
	double count = -1;

	eat(j, '{');
	while (!j->bad && !peek(j, '}')) {
		jstr(j, key, sizeof(key));
		eat(j, ':');
		if (strcmp(key, "stack") == 0)
			jstr(j, stack, sizeof(stack));
		else if (strcmp(key, "count") == 0)
			count = jnum(j);
		else
			j->bad = 1;
		if (!peek(j, '}'))
			eat(j, ',');
	}
	eat(j, '}');
	if (!j->bad && (count < 0 || !stack[0] ||
			bl_stack_add(s, stack, (uint64_t)count) != 0))
		j->bad = 1;
}

/* [ITEM, ...], each ITEM read by item. */
static void
jlist(struct jp *j, void (*item)(struct jp *, void *), void *arg)
{
	eat(j, '[');
	while (!j->bad && !peek(j, ']')) {
		item(j, arg);
		if (!peek(j, ']'))
			eat(j, ',');
	}
	eat(j, ']');
}

static void
jmetric_item(struct jp *j, void *run)
{
	jmetric(j, run);
}

static void
jstack_item(struct jp *j, void *set)
{
	jstack(j, set);
}

/* {"metrics": [...]}: one run. */
static void
jrun_item(struct jp *j, void *set)
{
	struct bl_run *r = ((struct bl_set *)set)->nruns < BL_MAX_RUNS ? bl_run_add(set) : NULL;
	char key[64];

	if (r == NULL) {
		j->bad = 1;
		return;
	}
	eat(j, '{');
	jstr(j, key, sizeof(key));
	eat(j, ':');
	if (strcmp(key, "metrics") != 0)
		j->bad = 1;
	jlist(j, jmetric_item, r);
	eat(j, '}');
}

static void
jset(struct jp *j, struct bl_set *s)
{
	char key[64];

	eat(j, '{');
	while (!j->bad && !peek(j, '}')) {
		jstr(j, key, sizeof(key));
		eat(j, ':');
		if (strcmp(key, "machtrace-baseline") == 0)
			j->version = (int)jnum(j);
		else if (j->version != BL_VERSION)
			j->bad = 1;	/* the version comes first */
		else if (strcmp(key, "workload") == 0)
			jstr(j, s->workload, sizeof(s->workload));
		else if (strcmp(key, "icount") == 0)
			jstr(j, s->icount, sizeof(s->icount));
		else if (strcmp(key, "seconds") == 0)
			s->seconds = (long)jnum(j);
		else if (strcmp(key, "runs") == 0)
			jlist(j, jrun_item, s);
		else if (strcmp(key, "stacks") == 0)
			jlist(j, jstack_item, s);
		else
			j->bad = 1;
		if (!peek(j, '}'))
			eat(j, ',');
	}
	eat(j, '}');
	ws(j);
	if (*j->p || !s->workload[0] || s->nruns < 2)	/* save measures 2 or more */
		j->bad = 1;
}

int
bl_read(struct bl_set *s, const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	struct jp j = { NULL, 0, 0 };
	char *text, why[200];
	long size;

	bl_set_init(s, "", 0, "");
	if (f == NULL) {
		seterr(err, len, errno == ENOENT ? "no baseline %s (save it first: "
		       "machtrace baseline save NAME)" : "cannot read %s: %s", path,
		       strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    (text = malloc((size_t)size + 1)) == NULL) {
		fclose(f);
		seterr(err, len, "cannot read %s", path);
		return -1;
	}
	text[fread(text, 1, (size_t)size, f)] = '\0';
	fclose(f);
	j.p = text;
	jset(&j, s);
	if (j.bad && j.version == 1)
		seterr(err, len, "%s was saved by an older machtrace (one run, file version "
		       "1): save it again, the comparison needs several runs", path);
	else if (j.bad)
		seterr(err, len, "%s is not a machtrace baseline (corrupt near byte %ld)",
		       path, (long)(j.p - text));
	else if (s->icount[0] && mt_icount_check(s->icount, why, sizeof(why)) != 0) {
		seterr(err, len, "%s is not a machtrace baseline: %s", path, why);
		j.bad = 1;
	}
	free(text);
	if (j.bad) {
		bl_set_free(s);
		return -1;
	}
	return 0;
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
