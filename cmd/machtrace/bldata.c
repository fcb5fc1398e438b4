/*
 * machtrace baseline's data (baseline.h): a measurement's runs, their
 * metrics and stacks, their JSON file, the comparison of two
 * measurements and the differential flame graphs.
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
#include "machtrace/stats.h"

/*
 * When a latency metric regressed (docs/baselines.md): at least
 * BL_MIN_RUNS runs on each side have BL_MIN_SAMPLES samples of it; the
 * bootstrap interval of the change of the median of the run medians
 * excludes 0, and that change is at least the noise floor: BL_MIN_REL
 * of the baseline's, or BL_NOISE_K times the run-to-run spread of the
 * runs (mt_runs_verdict).  A count (the mean over the runs) moved when
 * it changed by BL_COUNT_REL.
 */
#define BL_MIN_SAMPLES	8
#define BL_MIN_RUNS	2
#define BL_MIN_REL	0.05
#define BL_NOISE_K	3.0
#define BL_COUNT_REL	0.10
#define BL_BOOT_ITERS	2000
#define BL_BOOT_CONF	0.99
#define BL_BOOT_SEED	0x6d61636874726163ULL	/* "machtrac" */
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
	if (*j->p || !s->workload[0] || s->nruns == 0)
		j->bad = 1;
}

int
bl_read(struct bl_set *s, const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	struct jp j = { NULL, 0, 0 };
	char *text;
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
	free(text);
	if (j.bad) {
		bl_set_free(s);
		return -1;
	}
	return 0;
}

/* The runs of s with at least BL_MIN_SAMPLES samples of name, into rs
   (s->nruns entries); how many. */
static size_t
runs_of(const struct bl_set *s, const char *name, struct mt_run_samples *rs)
{
	size_t k = 0;

	for (size_t r = 0; r < s->nruns; r++) {
		const struct bl_metric *m = metric(&s->run[r], name);

		if (m && m->n >= BL_MIN_SAMPLES)
			rs[k].v = m->v, rs[k++].n = m->n;
	}
	return k;
}

/* The median over the runs of each run's q-quantile, and the samples. */
static double
runs_quantile(const struct mt_run_samples *rs, size_t k, double q, size_t *n)
{
	double v[k ? k : 1];

	*n = 0;
	for (size_t i = 0; i < k; i++) {
		v[i] = mt_quantile(rs[i].v, rs[i].n, q);
		*n += rs[i].n;
	}
	return mt_median(v, k);
}

/* One latency metric of both measurements: 1 when it regressed, 0 when
   not; -1 when too few runs have it to test. */
static int
compare_latency(const char *name, const struct bl_set *old, const struct bl_set *cur,
		FILE *out, int *moved)
{
	struct mt_run_samples o[old->nruns ? old->nruns : 1], c[cur->nruns ? cur->nruns : 1];
	size_t ko = runs_of(old, name, o), kc = runs_of(cur, name, c), no, nc;
	struct mt_runs_cmp r;
	double floor, p99o, p99c;
	int v;

	if (ko < BL_MIN_RUNS || kc < BL_MIN_RUNS)
		return -1;
	if (mt_runs_compare(o, ko, c, kc, BL_BOOT_ITERS, BL_BOOT_CONF, BL_BOOT_SEED, &r) != 0)
		return -1;
	if ((v = mt_runs_verdict(&r, BL_MIN_REL, BL_NOISE_K, &floor)) == 0) {
		fprintf(out, "same: %s p50 %.0f -> %.0f (%+.1f%%), within the noise "
			"floor %.1f%% or the %.0f%% interval [%+.0f, %+.0f]\n", name, r.a_med,
			r.b_med, 100 * (r.b_med - r.a_med) / r.a_med, 100 * floor,
			100 * BL_BOOT_CONF, r.lo, r.hi);
		return 0;
	}
	(*moved)++;
	p99o = runs_quantile(o, ko, 0.99, &no);
	p99c = runs_quantile(c, kc, 0.99, &nc);
	fprintf(out, "%s: %s p50 %+.0f ns (%.0f -> %.0f, %+.1f%%), p99 %.0f -> %.0f, "
		"runs %zu -> %zu (n %zu -> %zu), %.0f%% interval of the p50 change "
		"[%+.0f, %+.0f], noise floor %.1f%% (run-to-run spread %.1f%% -> %.1f%%)\n",
		v > 0 ? "regressed" : "improved", name, r.b_med - r.a_med, r.a_med, r.b_med,
		100 * (r.b_med - r.a_med) / r.a_med, p99o, p99c, ko, kc, no, nc,
		100 * BL_BOOT_CONF, r.lo, r.hi, 100 * floor, 100 * r.a_spread, 100 * r.b_spread);
	return v > 0;
}

/* A count's mean over the runs of s (a run without it counts 0). */
static double
count_mean(const struct bl_set *s, const char *name)
{
	double sum = 0;

	for (size_t r = 0; r < s->nruns; r++) {
		const struct bl_metric *m = metric(&s->run[r], name);

		for (size_t i = 0; m && i < m->n; i++)
			sum += m->v[i];
	}
	return s->nruns ? sum / (double)s->nruns : 0;
}

/* The metric of that name in some run of s, or NULL. */
static const struct bl_metric *
any_metric(const struct bl_set *s, const char *name)
{
	const struct bl_metric *m = NULL;

	for (size_t r = 0; r < s->nruns && m == NULL; r++)
		m = metric(&s->run[r], name);
	return m;
}

/* Is m's name the first of its kind in s (runs before r, metrics
   before it in r): each metric is compared once. */
static int
first_seen(const struct bl_set *s, size_t r, const struct bl_metric *m)
{
	for (size_t i = 0; i < r; i++)
		if (metric(&s->run[i], m->name))
			return 0;
	return 1;
}

/* The latency metrics and counts of old against cur; *tested, *moved. */
static int
compare_metrics(const struct bl_set *old, const struct bl_set *cur, FILE *out,
		int *tested, int *moved)
{
	struct mt_run_samples rs[cur->nruns ? cur->nruns : 1];
	int regressed = 0;

	for (size_t r = 0; r < old->nruns; r++)
		for (size_t i = 0; i < old->run[r].nmetrics; i++) {
			const struct bl_metric *o = &old->run[r].m[i];
			double a, b;
			int rc;

			if (!first_seen(old, r, o))
				continue;
			if (o->kind == BL_LATENCY) {
				if ((rc = compare_latency(o->name, old, cur, out, moved)) >= 0) {
					(*tested)++;
					regressed += rc;
				} else if (runs_of(cur, o->name, rs) == 0 && o->n >= BL_MIN_SAMPLES)
					fprintf(out, "gone: %s (in the baseline, in no run of "
						"this measurement)\n", o->name);
				continue;
			}
			a = count_mean(old, o->name), b = count_mean(cur, o->name);
			if (fabs(b - a) > BL_COUNT_REL * (a > 0 ? a : 1)) {
				(*moved)++;
				fprintf(out, "changed: %s %.0f -> %.0f (%+.0f, %+.1f%%; a count, "
					"the mean over the runs: no test)\n", o->name, a, b, b - a,
					a > 0 ? 100 * (b - a) / a : 100.0);
			}
		}
	return regressed;
}

int
bl_compare(const struct bl_set *old, const struct bl_set *cur, FILE *out)
{
	int regressed, moved = 0, tested = 0;

	fprintf(out, "compared %zu runs of the baseline with %zu runs of this "
		"measurement\n", old->nruns, cur->nruns);
	regressed = compare_metrics(old, cur, out, &tested, &moved);
	for (size_t r = 0; r < cur->nruns; r++)
		for (size_t i = 0; i < cur->run[r].nmetrics; i++) {
			const struct bl_metric *m = &cur->run[r].m[i];

			if (first_seen(cur, r, m) && any_metric(old, m->name) == NULL &&
			    (m->kind == BL_COUNT || m->n >= BL_MIN_SAMPLES))
				fprintf(out, "new: %s (not in the baseline)\n", m->name);
		}
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
