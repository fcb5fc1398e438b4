/*
 * machtrace baseline's data (baseline.h): a measurement's metrics and
 * stacks, their JSON file, the comparison of two measurements and the
 * differential flame graphs.
 *
 * The file:
 *   {"machtrace-baseline": 1, "workload": "...", "seconds": S,
 *    "icount": "shift=0",
 *    "metrics": [{"name": "...", "kind": "latency"|"count",
 *                 "samples": [N, ...]}, ...],
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
#include "machtrace/stats.h"

/*
 * When a latency metric regressed (docs/baselines.md): both runs have
 * BL_MIN_SAMPLES samples, Mann-Whitney's two-sided p is below BL_ALPHA,
 * the bootstrap interval of the median's change excludes 0 and the
 * median moved by BL_MIN_REL of the baseline's.  A count moved when it
 * changed by BL_COUNT_REL.
 */
#define BL_MIN_SAMPLES	8
#define BL_ALPHA	0.001
#define BL_MIN_REL	0.05
#define BL_COUNT_REL	0.10
#define BL_BOOT_ITERS	1000
#define BL_BOOT_CONF	0.95
#define BL_BOOT_SEED	0x6d61636874726163ULL	/* "machtrac" */

void
bl_run_init(struct bl_run *r, const char *workload, long seconds, const char *icount)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->workload, sizeof(r->workload), "%s", workload ? workload : "");
	snprintf(r->icount, sizeof(r->icount), "%s", icount ? icount : "");
	r->seconds = seconds;
}

void
bl_run_free(struct bl_run *r)
{
	for (size_t i = 0; i < r->nmetrics; i++) {
		free(r->m[i].name);
		free(r->m[i].v);
	}
	for (size_t i = 0; i < r->nstacks; i++)
		free(r->st[i].stack);
	free(r->m);
	free(r->st);
	r->m = NULL, r->st = NULL;
	r->nmetrics = r->nstacks = 0;
}

static struct bl_metric *
metric(const struct bl_run *r, const char *name)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (strcmp(r->m[i].name, name) == 0)
			return &r->m[i];
	return NULL;
}

int
bl_sample_add(struct bl_run *r, const char *name, enum bl_kind kind, double v)
{
	struct bl_metric *m = metric(r, name);

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
bl_stack_add(struct bl_run *r, const char *stack, uint64_t count)
{
	for (size_t i = 0; i < r->nstacks; i++)
		if (strcmp(r->st[i].stack, stack) == 0) {
			r->st[i].count += count;
			return 0;
		}
	if (r->nstacks == r->scap) {
		size_t cap = r->scap ? 2 * r->scap : 64;
		struct bl_stack *n = realloc(r->st, cap * sizeof(*n));

		if (n == NULL)
			return -1;
		r->st = n, r->scap = cap;
	}
	if ((r->st[r->nstacks].stack = strdup(stack)) == NULL)
		return -1;
	r->st[r->nstacks++].count = count;
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

int
bl_write(const struct bl_run *r, const char *path, char *err, size_t len)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL) {
		seterr(err, len, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"machtrace-baseline\": 1, \"workload\": ");
	mt_json_escape(f, r->workload, strlen(r->workload));
	fprintf(f, ", \"seconds\": %ld, \"icount\": ", r->seconds);
	mt_json_escape(f, r->icount, strlen(r->icount));
	fprintf(f, ",\n \"metrics\": [");
	for (size_t i = 0; i < r->nmetrics; i++) {
		fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
		mt_json_escape(f, r->m[i].name, strlen(r->m[i].name));
		fprintf(f, ", \"kind\": \"%s\", \"samples\": [",
			r->m[i].kind == BL_LATENCY ? "latency" : "count");
		for (size_t k = 0; k < r->m[i].n; k++)
			fprintf(f, "%s%.17g", k ? ", " : "", r->m[i].v[k]);
		fprintf(f, "]}");
	}
	fprintf(f, "],\n \"stacks\": [");
	for (size_t i = 0; i < r->nstacks; i++) {
		fprintf(f, "%s\n  {\"stack\": ", i ? "," : "");
		mt_json_escape(f, r->st[i].stack, strlen(r->st[i].stack));
		fprintf(f, ", \"count\": %llu}", (unsigned long long)r->st[i].count);
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
jstack(struct jp *j, struct bl_run *r)
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
			bl_stack_add(r, stack, (uint64_t)count) != 0))
		j->bad = 1;
}

static void
jrun(struct jp *j, struct bl_run *r)
{
	char key[64];
	int version = 0;

	eat(j, '{');
	while (!j->bad && !peek(j, '}')) {
		jstr(j, key, sizeof(key));
		eat(j, ':');
		if (strcmp(key, "machtrace-baseline") == 0)
			version = (int)jnum(j);
		else if (strcmp(key, "workload") == 0)
			jstr(j, r->workload, sizeof(r->workload));
		else if (strcmp(key, "icount") == 0)
			jstr(j, r->icount, sizeof(r->icount));
		else if (strcmp(key, "seconds") == 0)
			r->seconds = (long)jnum(j);
		else if (strcmp(key, "metrics") == 0 || strcmp(key, "stacks") == 0) {
			int m = key[0] == 'm';

			eat(j, '[');
			while (!j->bad && !peek(j, ']')) {
				if (m)
					jmetric(j, r);
				else
					jstack(j, r);
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
	ws(j);
	if (*j->p || version != 1 || !r->workload[0])
		j->bad = 1;
}

int
bl_read(struct bl_run *r, const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	struct jp j = { NULL, 0 };
	char *text;
	long size;

	bl_run_init(r, "", 0, "");
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
	jrun(&j, r);
	if (j.bad) {
		seterr(err, len, "%s is not a machtrace baseline (corrupt near byte %ld)",
		       path, (long)(j.p - text));
		free(text);
		bl_run_free(r);
		return -1;
	}
	free(text);
	return 0;
}

/* One latency metric of both runs: 1 when it regressed. */
static int
compare_latency(const struct bl_metric *o, const struct bl_metric *c, FILE *out,
		int *moved)
{
	double mo, mc, rel;
	struct mt_mwu u;
	struct mt_boot b;

	if (o->n < BL_MIN_SAMPLES || c->n < BL_MIN_SAMPLES)
		return 0;
	if (mt_mann_whitney(o->v, o->n, c->v, c->n, &u) != 0 ||
	    mt_bootstrap_median_diff(o->v, o->n, c->v, c->n, BL_BOOT_ITERS, BL_BOOT_CONF,
				     BL_BOOT_SEED, &b) != 0)
		return 0;
	mo = mt_median(o->v, o->n);
	mc = mt_median(c->v, c->n);
	rel = mo > 0 ? (mc - mo) / mo : mc > 0 ? 1 : 0;
	if (u.p >= BL_ALPHA || (b.lo <= 0 && b.hi >= 0) || fabs(rel) < BL_MIN_REL)
		return 0;
	(*moved)++;
	fprintf(out, "%s: %s p50 %+.0f ns (%.0f -> %.0f, %+.1f%%), p99 %.0f -> %.0f, "
		"n %zu -> %zu, Mann-Whitney p=%.2g, 95%% interval of the p50 change "
		"[%+.0f, %+.0f]\n", mc > mo ? "regressed" : "improved", o->name, mc - mo,
		mo, mc, 100 * rel, mt_quantile(o->v, o->n, 0.99), mt_quantile(c->v, c->n, 0.99),
		o->n, c->n, u.p, b.lo, b.hi);
	return mc > mo;
}

static double
total(const struct bl_metric *m)
{
	double s = 0;

	for (size_t i = 0; m && i < m->n; i++)
		s += m->v[i];
	return s;
}

int
bl_compare(const struct bl_run *old, const struct bl_run *cur, FILE *out)
{
	int regressed = 0, moved = 0, tested = 0;

	for (size_t i = 0; i < old->nmetrics; i++) {
		const struct bl_metric *o = &old->m[i], *c = metric(cur, o->name);

		if (o->kind == BL_LATENCY) {
			if (c == NULL) {
				if (o->n >= BL_MIN_SAMPLES)
					fprintf(out, "gone: %s (%zu samples in the baseline)\n",
						o->name, o->n);
				continue;
			}
			tested += o->n >= BL_MIN_SAMPLES && c->n >= BL_MIN_SAMPLES;
			regressed += compare_latency(o, c, out, &moved);
		} else {
			double a = total(o), b = total(c);

			if (fabs(b - a) > BL_COUNT_REL * (a > 0 ? a : 1)) {
				moved++;
				fprintf(out, "changed: %s %.0f -> %.0f (%+.0f, %+.1f%%; a count, "
					"one per run: no test)\n", o->name, a, b, b - a,
					a > 0 ? 100 * (b - a) / a : 100.0);
			}
		}
	}
	for (size_t i = 0; i < cur->nmetrics; i++)
		if (metric(old, cur->m[i].name) == NULL &&
		    (cur->m[i].kind == BL_COUNT || cur->m[i].n >= BL_MIN_SAMPLES))
			fprintf(out, "new: %s (not in the baseline)\n", cur->m[i].name);
	if (regressed)
		fprintf(out, "REGRESSION: %d of %d latency metrics regressed\n", regressed,
			tested);
	else
		fprintf(out, "no regression: %d latency metrics tested, %d metrics moved\n",
			tested, moved);
	return regressed != 0;
}

/* Both runs' stacks, merged: count from one, other from the other. */
static struct mt_flame_diff *
merge_stacks(const struct bl_run *a, const struct bl_run *b, size_t *n)
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
flame_one(const struct bl_run *w, const struct bl_run *o, const char *path,
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
bl_flame_both(const struct bl_run *old, const struct bl_run *cur,
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
