/*
 * Draining the principal buffers and printing records as dtrace(1) does:
 * the CPU/ID/FUNCTION:NAME prefix (only FUNCTION:NAME when _DTRACE_TESTING
 * is set), trace() data, printf(), printa(), stack(), tracemem(), the
 * library actions (clear, trunc, normalize, setopt, system, freopen),
 * exit(), runtime error records and drop reports.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "impl.h"

static const char *const fault_text[] = {
	[MT_FLT_NONE] = "no fault", [MT_FLT_BADADDR] = "invalid address",
	[MT_FLT_BADALIGN] = "invalid alignment",
	[MT_FLT_ILLOP] = "illegal operation",
	[MT_FLT_DIVZERO] = "divide-by-zero",
	[MT_FLT_NOSCRATCH] = "out of scratch space",
	[MT_FLT_KPRIV] = "invalid kernel access",
	[MT_FLT_UPRIV] = "invalid user access",
	[MT_FLT_TUPOFLOW] = "tuple stack overflow",
	[MT_FLT_BADSTACK] = "bad stack", [MT_FLT_BADSIZE] = "invalid size",
	[MT_FLT_LIBRARY] = "library-level fault",
};

struct mt_consumer *
mt_consumer_new(const struct mt_prog *prog, const struct mt_image *img,
		struct mt_opts *opts, struct mt_target *target, FILE *out,
		FILE *err)
{
	struct mt_consumer *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->prog = prog;
	c->img = img;
	c->opts = opts;
	c->target = target;
	c->out = out;
	c->err = err;
	if (agg_setup(c) != 0) {
		mt_consumer_free(c);
		return NULL;
	}
	return c;
}

void
mt_consumer_free(struct mt_consumer *c)
{
	if (c == NULL)
		return;
	agg_free(c);
	free(c->seen_drops);
	free(c->seen_stat);
	free(c);
}

void
mt_consumer_attach(struct mt_consumer *c, struct mt_cb *cb)
{
	c->cb = cb;
	free(c->seen_drops);
	free(c->seen_stat);
	c->seen_drops = calloc(cb->ncpus ? cb->ncpus : 1, sizeof(uint64_t));
	c->seen_stat = calloc(cb->ncpus ? cb->ncpus : 1,
			      sizeof(struct mt_cpustat));
}

int mt_consumer_exited(const struct mt_consumer *c) { return c->exited; }
int mt_consumer_status(const struct mt_consumer *c) { return c->status; }
const char *mt_consumer_error(const struct mt_consumer *c) { return c->errmsg; }

static const char *
img_str(const struct mt_consumer *c, uint32_t off)
{
	const char *tab = (const char *)c->img + c->img->strtab_off;

	return off < c->img->strtab_size ? tab + off : "";
}

static const struct mt_probe *
probe_of_epid(const struct mt_consumer *c, uint32_t epid,
	      const struct mt_ecb **ecbp)
{
	const struct mt_ecb *ecbs;
	const struct mt_probe *probes;

	if (epid == 0 || epid > c->img->necbs)
		return NULL;
	ecbs = (const void *)((const char *)c->img + c->img->ecbs_off);
	probes = (const void *)((const char *)c->img + c->img->probes_off);
	*ecbp = &ecbs[epid - 1];
	if ((*ecbp)->probe >= c->img->nprobes)
		return NULL;
	return &probes[(*ecbp)->probe];
}

static int64_t
read_int(const uint8_t *p, uint32_t size, int sign)
{
	switch (size) {
	case 1: return sign ? (int8_t)p[0] : p[0];
	case 2: { int16_t v; memcpy(&v, p, 2);
		  return sign ? (int64_t)v : (int64_t)(uint16_t)v; }
	case 4: { int32_t v; memcpy(&v, p, 4);
		  return sign ? (int64_t)v : (int64_t)(uint32_t)v; }
	case 8: { int64_t v; memcpy(&v, p, 8); return v; }
	}
	return 0;
}

static void
print_stack(struct mt_consumer *c, FILE *fp, const uint8_t *p, uint32_t size)
{
	int indent = (int)(c->opts->stackindent == MT_OPT_UNSET ? 0 :
			   c->opts->stackindent);
	uint64_t pc;

	fputc('\n', fp);
	for (uint32_t i = 0; i + 8 <= size; i += 8) {
		memcpy(&pc, p + i, 8);
		if (pc == 0)
			break;
		fprintf(fp, "%*s0x%llx\n", indent, "", (unsigned long long)pc);
	}
}

/* dt_print_bytes: a string if it looks like one, else a hex dump. */
static void
print_bytes(struct mt_consumer *c, FILE *fp, const uint8_t *p, uint32_t n,
	    int width, int quiet)
{
	uint32_t i, j;

	if (n == 0)
		return;
	if (c->opts->rawbytes) {
		mt_print_rawbytes(fp, p, n);
		return;
	}
	for (i = 0; i < n; i++) {
		if ((p[i] >= ' ' && p[i] <= '~') || (p[i] >= '\t' && p[i] <= '\r')
		    || p[i] == '\b' || p[i] == '\a')
			continue;
		if (p[i] == '\0' && i > 0) {
			for (j = i + 1; j < n && p[j] == '\0'; j++)
				;
			if (j != n)
				break;
			if (quiet)
				fprintf(fp, "%s", (const char *)p);
			else
				fprintf(fp, "  %-*s", width, (const char *)p);
			return;
		}
		break;
	}
	if (i == n) {
		fprintf(fp, "  %-*.*s", width, (int)n, (const char *)p);
		return;
	}
	mt_print_rawbytes(fp, p, n);
}

/* An aggregation key element (dt_print_datum). */
void
print_key_datum(struct mt_consumer *c, FILE *fp, const struct mt_rec_info *ri,
		const uint8_t *d)
{
	uint64_t v;

	switch (ri->kind) {
	case MT_TI_INT:
	case MT_TI_UINT:
		switch (ri->size) {
		case 1: fprintf(fp, " %3d", d[0]); return;
		case 2: fprintf(fp, " %5d", (int)read_int(d, 2, 0)); return;
		case 4: fprintf(fp, " %8d", (int)read_int(d, 4, 1)); return;
		default: fprintf(fp, " %16lld", (long long)read_int(d, 8, 1));
			return;
		}
	case MT_TI_STR:
		print_bytes(c, fp, d, (uint32_t)strnlen((const char *)d,
			    c->img ? c->img->opt.strsize : ri->size) + 1, 50, 0);
		return;
	case MT_TI_STACK:
	case MT_TI_USTACK:
		print_stack(c, fp, d, ri->size);
		return;
	case MT_TI_SYM: case MT_TI_MOD: case MT_TI_USYM: case MT_TI_UMOD:
	case MT_TI_UADDR: {
		char buf[32];

		memcpy(&v, d + (ri->kind >= MT_TI_USYM && ri->size > 8 ? 8 : 0),
		       8);
		snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
		fprintf(fp, "  %-50s", buf);
		return;
	}
	default:
		print_bytes(c, fp, d, ri->size, 50, 0);
		return;
	}
}

/* trace(): dt_print_trace of dtrace-utils. */
static void
print_trace(struct mt_consumer *c, FILE *fp, const struct mt_rec *r,
	    const struct mt_rec_info *ri, const uint8_t *d)
{
	int quiet = c->opts->quiet;
	uint32_t size = r->size;
	int sign;

	if (c->opts->rawbytes) {
		mt_print_rawbytes(fp, d, size);
		return;
	}
	if (r->kind == MT_REC_STR || (ri && ri->kind == MT_TI_STR)) {
		if (quiet)
			fprintf(fp, "%.*s", (int)size, (const char *)d);
		else
			fprintf(fp, "  %-33.*s", (int)strnlen((const char *)d,
				size), (const char *)d);
		return;
	}
	if (r->kind == MT_REC_STACK) {
		print_stack(c, fp, d, size);
		return;
	}
	if (r->kind == MT_REC_MEM) {
		print_bytes(c, fp, d, size, 33, quiet);
		return;
	}
	sign = ri ? ri->kind == MT_TI_INT : (r->flags & MT_RF_SIGNED) != 0;
	if (ri && (ri->kind == MT_TI_SYM || ri->kind == MT_TI_MOD ||
		   ri->kind == MT_TI_USYM || ri->kind == MT_TI_UMOD ||
		   ri->kind == MT_TI_UADDR)) {
		print_key_datum(c, fp, ri, d);
		return;
	}
	switch (size) {
	case 8:
		fprintf(fp, sign ? (quiet ? "%lld" : " %19lld") :
			(quiet ? "%llu" : " %20llu"),
			(long long)read_int(d, 8, 1));
		break;
	case 4:
		fprintf(fp, sign ? (quiet ? "%d" : " %10d") :
			(quiet ? "%u" : " %10u"), (int)read_int(d, 4, sign));
		break;
	case 2:
		fprintf(fp, sign ? (quiet ? "%d" : " %5d") :
			(quiet ? "%u" : " %5u"), (int)read_int(d, 2, sign));
		break;
	case 1:
		fprintf(fp, sign ? (quiet ? "%d" : " %3d") :
			(quiet ? "%u" : " %3u"), (int)read_int(d, 1, sign));
		break;
	default:
		mt_print_rawbytes(fp, d, size);
		break;
	}
}

static struct mt_pfarg *
make_args(const struct mt_consumer *c, const struct mt_action *a,
	  const uint8_t *data)
{
	struct mt_pfarg *args = calloc(a->nrecs + 1, sizeof(*args));

	if (args == NULL)
		return NULL;
	for (uint32_t i = 0; i < a->nrecs; i++) {
		const struct mt_rec *r = &c->prog->recs[a->rec0 + i];
		const struct mt_rec_info *ri = c->prog->rec_info ?
			&c->prog->rec_info[a->rec0 + i] : NULL;

		args[i].kind = ri ? ri->kind : (r->kind == MT_REC_STR ?
				MT_TI_STR : MT_TI_INT);
		if (r->kind == MT_REC_STACK)
			args[i].kind = MT_TI_STACK;
		args[i].size = r->size;
		if (ri && (ri->kind == MT_TI_INT || ri->kind == MT_TI_UINT) &&
		    ri->size && ri->size < r->size)
			args[i].size = ri->size;
		args[i].data = data + r->offset;
	}
	return args;
}

/* Format an action's printf-style string into a malloc'd buffer. */
static char *
format_action(struct mt_consumer *c, const struct mt_action *a,
	      const struct mt_action_info *ai, const uint8_t *data)
{
	struct mt_pfarg *args = make_args(c, a, data);
	char *buf = NULL, err[128];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (m == NULL || args == NULL) {
		free(args);
		if (m)
			fclose(m);
		return NULL;
	}
	mt_printf(m, ai && ai->fmt ? ai->fmt : "", args, a->nrecs, err,
		  sizeof(err));
	fclose(m);
	free(args);
	return buf;
}

static void
liberr(struct mt_consumer *c, uint32_t epid, const struct mt_probe *p,
       const char *msg)
{
	fprintf(c->err, "dtrace: error on enabled probe ID %u (ID %u: "
		"%s:%s:%s:%s): %s\n", epid, p->id, img_str(c, p->prov),
		img_str(c, p->mod), img_str(c, p->func), img_str(c, p->name),
		msg);
}

static void
act_setopt(struct mt_consumer *c, uint32_t epid, const struct mt_probe *p,
	   const struct mt_action_info *ai)
{
	const char *val = ai->opt_value ? ai->opt_value : "1";
	char why[128], msg[512];

	if (ai->opt_name == NULL)
		return;
	if (mt_opts_set_active(c->opts, ai->opt_name, val, why,
			       sizeof(why)) == 0)
		return;
	/* dtrace ends this message with a newline of its own */
	snprintf(msg, sizeof(msg), "couldn't set option \"%s\" to \"%s\": "
		 "%s\n", ai->opt_name, val, why);
	liberr(c, epid, p, msg);
}

static void
act_freopen(struct mt_consumer *c, const char *path)
{
	FILE *f;

	fflush(c->out);
	if (path == NULL || path[0] == '\0') {
		if (c->out != stdout) {
			fclose(c->out);
			c->out = stdout;
		}
		return;
	}
	if ((f = fopen(path, "a")) == NULL) {
		fprintf(c->err, "dtrace: couldn't freopen() \"%s\"\n", path);
		return;
	}
	if (c->out != stdout)
		fclose(c->out);
	c->out = f;
}

static int64_t
rec_value(const struct mt_consumer *c, const struct mt_action *a, uint32_t i,
	  const uint8_t *data)
{
	const struct mt_rec *r;

	if (i >= a->nrecs)
		return 0;
	r = &c->prog->recs[a->rec0 + i];
	return read_int(data + r->offset, r->size, 1);
}

/* Run one action of a record; returns 1 if it printed data. */
static void
do_action(struct mt_consumer *c, uint32_t epid, const struct mt_probe *p,
	  uint32_t ai_idx, const uint8_t *data)
{
	const struct mt_action *a = &c->prog->actions[ai_idx];
	const struct mt_action_info *ai = c->prog->action_info ?
		&c->prog->action_info[ai_idx] : NULL;
	const struct mt_rec *r = a->nrecs ? &c->prog->recs[a->rec0] : NULL;
	uint32_t aggid = ai && ai->naggids ? ai->aggids[0] : 0;
	char *s;

	switch (a->kind) {
	case MT_ACT_TRACE:
		if (r)
			print_trace(c, c->out, r, c->prog->rec_info ?
				    &c->prog->rec_info[a->rec0] : NULL,
				    data + r->offset);
		break;
	case MT_ACT_PRINTF:
		if ((s = format_action(c, a, ai, data)) != NULL) {
			fputs(s, c->out);
			free(s);
		}
		break;
	case MT_ACT_PRINTA:
		if (ai)
			agg_printa(c, c->out, ai->fmt, ai->aggids,
				   (int)ai->naggids);
		break;
	case MT_ACT_EXIT:
		c->status = (int)rec_value(c, a, 0, data);
		c->exited = 1;
		break;
	case MT_ACT_STACK:
	case MT_ACT_USTACK:
		if (r)
			print_stack(c, c->out, data + r->offset, r->size);
		break;
	case MT_ACT_TRACEMEM: {
		uint64_t n = r ? r->size : 0;

		if (a->nrecs > 1) {
			int64_t dn = rec_value(c, a, 1, data);
			if (dn >= 0 && (uint64_t)dn < n)
				n = (uint64_t)dn;
		}
		if (r)
			mt_print_rawbytes(c->out, data + r->offset, n);
		break;
	}
	case MT_ACT_CLEAR:
		agg_clear(c, aggid);
		break;
	case MT_ACT_NORMALIZE:
		if (aggid && aggid <= c->prog->naggs) {
			int64_t n = rec_value(c, a, 0, data);
			c->normal[aggid] = n > 0 ? (uint64_t)n : 1;
		}
		break;
	case MT_ACT_DENORMALIZE:
		if (aggid && aggid <= c->prog->naggs)
			c->normal[aggid] = 1;
		break;
	case MT_ACT_TRUNC:
		agg_trunc(c, aggid, rec_value(c, a, 0, data), a->nrecs == 0);
		break;
	case MT_ACT_SETOPT:
		if (ai)
			act_setopt(c, epid, p, ai);
		break;
	case MT_ACT_SYSTEM:
		if ((s = format_action(c, a, ai, data)) != NULL) {
			fflush(c->out);
			fflush(c->err);
			if (system(s) == -1)
				fprintf(c->err, "dtrace: system() failed\n");
			free(s);
		}
		break;
	case MT_ACT_FREOPEN:
		s = format_action(c, a, ai, data);
		act_freopen(c, s);
		free(s);
		break;
	case MT_ACT_FTRUNCATE:
		fflush(c->out);
		if (ftruncate(fileno(c->out), 0) == 0)
			fseeko(c->out, 0, SEEK_SET);
		break;
	case MT_ACT_PRINT:
		if (r)
			print_trace(c, c->out, r, c->prog->rec_info ?
				    &c->prog->rec_info[a->rec0] : NULL,
				    data + r->offset);
		break;
	case MT_ACT_SYM: case MT_ACT_MOD: case MT_ACT_USYM: case MT_ACT_UMOD:
	case MT_ACT_UADDR:
		if (r) {
			struct mt_rec_info ri = { MT_TI_SYM, 0, r->size, NULL };
			print_key_datum(c, c->out, &ri, data + r->offset);
		}
		break;
	default:
		break;
	}
}

static void
print_prefix(struct mt_consumer *c, const struct mt_rechdr *h,
	     const struct mt_probe *p)
{
	int testing = getenv("_DTRACE_TESTING") != NULL;
	char name[512];

	if (!c->heading) {
		if (c->opts->flowindent)
			fprintf(c->out, testing ? "%-41s\n" : "%3s %-41s\n",
				testing ? "FUNCTION" : "CPU", "FUNCTION");
		else if (!c->opts->quiet) {
			if (testing)
				fprintf(c->out, "%32s\n", "FUNCTION:NAME");
			else
				fprintf(c->out, "%3s %6s %32s\n", "CPU", "ID",
					"FUNCTION:NAME");
		}
		c->heading = 1;
	}
	if (c->opts->flowindent) {
		snprintf(name, sizeof(name), "| %s:%s", img_str(c, p->func),
			 img_str(c, p->name));
		if (testing)
			fprintf(c->out, "%-41s ", name);
		else
			fprintf(c->out, "%3u %-41s ", h->cpu, name);
		return;
	}
	if (c->opts->quiet)
		return;
	snprintf(name, sizeof(name), "%s:%s", img_str(c, p->func),
		 img_str(c, p->name));
	if (testing)
		fprintf(c->out, "%32s ", name);
	else
		fprintf(c->out, "%3u %6u %32s ", h->cpu, p->id, name);
}

static void
error_record(struct mt_consumer *c, const struct mt_errrec *e)
{
	const struct mt_ecb *ecb;
	const struct mt_probe *p = probe_of_epid(c, e->epid, &ecb);
	const char *ft = e->fault < sizeof(fault_text) / sizeof(*fault_text) &&
		fault_text[e->fault] ? fault_text[e->fault] : "unknown fault";
	char details[64] = "";

	if (e->fault == MT_FLT_BADADDR || e->fault == MT_FLT_BADALIGN ||
	    e->fault == MT_FLT_BADSTACK || e->fault == MT_FLT_BADSIZE)
		snprintf(details, sizeof(details), " (0x%llx)",
			 (unsigned long long)e->addr);
	fflush(c->out);
	if (p == NULL) {
		fprintf(c->err, "dtrace: error on enabled probe ID %u: %s%s at "
			"DIF offset %u\n", e->epid, ft, details, e->pc);
		return;
	}
	fprintf(c->err, "dtrace: error on enabled probe ID %u (ID %u: "
		"%s:%s:%s:%s): %s%s at DIF offset %u\n", e->epid, p->id,
		img_str(c, p->prov), img_str(c, p->mod), img_str(c, p->func),
		img_str(c, p->name), ft, details, e->pc);
	fflush(c->err);
}

/* Print one record; returns its total size, 0 if it cannot be decoded. */
static uint64_t
process_record(struct mt_consumer *c, const uint8_t *rec, uint64_t avail)
{
	const struct mt_rechdr *h = (const void *)rec;
	const uint8_t *data = rec + sizeof(*h);
	const struct mt_clause *cl;
	const struct mt_ecb *ecb;
	const struct mt_probe *p;
	uint64_t size;
	int recording = 0, cd_seen = 0;

	if (h->epid == MT_EPID_ERROR) {
		size = sizeof(*h) + sizeof(struct mt_errrec);
		if (size <= avail)
			error_record(c, (const void *)data);
		return (size + 7) & ~7ULL;
	}
	if ((p = probe_of_epid(c, h->epid, &ecb)) == NULL ||
	    ecb->clause >= c->prog->nclauses)
		return 0;
	cl = &c->prog->clauses[ecb->clause];
	size = (sizeof(*h) + cl->recsize + 7) & ~7ULL;
	if (size > avail)
		return 0;
	/* dtrace-utils: a clause that only commits or discards (besides
	   recording nothing) is not data-recording: no prefix, no newline */
	for (uint32_t i = 0; i < cl->nacts; i++) {
		uint16_t k = c->prog->actions[cl->act0 + i].kind;
		if (k == MT_ACT_COMMIT || k == MT_ACT_DISCARD)
			cd_seen = 1;
		else if (k != MT_ACT_DIFEXPR && k != MT_ACT_AGG)
			recording = 1;
	}
	if (!cd_seen)
		recording = 1;
	if (recording)
		print_prefix(c, h, p);
	for (uint32_t i = 0; i < cl->nacts; i++)
		do_action(c, h->epid, p, cl->act0 + i, data);
	if (recording && !c->opts->quiet)
		fputc('\n', c->out);
	return size;
}

static int
drain_cpu(struct mt_consumer *c, uint32_t cpu)
{
	struct mt_cpubuf *b = (struct mt_cpubuf *)((char *)c->cb +
			      c->cb->cpubuf_off) + cpu;
	const uint8_t *base = (const uint8_t *)c->cb + b->data_off;
	uint64_t tail = b->tail, head = b->head;

	if (b->size == 0)
		return 0;
	if (c->img->opt.bufpolicy == MT_BUFPOLICY_RING &&
	    c->cb->state != MT_CB_STOPPED)
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	while (tail < head) {
		uint64_t off = tail % b->size, n;
		const struct mt_rechdr *h = (const void *)(base + off);

		if (b->size - off < sizeof(*h) || h->epid == 0) {
			tail += b->size - off;
			continue;
		}
		n = process_record(c, base + off, b->size - off);
		if (n == 0) {
			snprintf(c->errmsg, sizeof(c->errmsg),
				 "bad record (EPID %u) in CPU %u's buffer",
				 h->epid, cpu);
			b->tail = head;
			return -1;
		}
		tail += n;
	}
	__atomic_store_n(&b->tail, tail, __ATOMIC_RELEASE);
	return 0;
}

int
mt_consume(struct mt_consumer *c)
{
	int rv = 0;

	if (c->cb == NULL)
		return 0;
	if (agg_snapshot(c) != 0) {
		snprintf(c->errmsg, sizeof(c->errmsg),
			 "cannot snapshot aggregations");
		return -1;
	}
	for (uint32_t cpu = 0; cpu < c->cb->ncpus; cpu++)
		if (drain_cpu(c, cpu) != 0)
			rv = -1;
	fflush(c->out);
	return rv;
}

static void
drop_line(struct mt_consumer *c, const char *tag, uint64_t n, const char *what,
	  const char *details, int plural_s)
{
	if (n == 0)
		return;
	fflush(c->out);
	fprintf(c->err, "dtrace: %s%s%s%llu %s%s%s\n",
		c->opts->droptags ? "[" : "", c->opts->droptags ? tag : "",
		c->opts->droptags ? "] " : "", (unsigned long long)n, what,
		plural_s && n > 1 ? "s" : "", details);
}

void
mt_consume_drops(struct mt_consumer *c)
{
	const struct mt_cpubuf *b;
	const struct mt_cpustat *st;
	struct mt_cpustat tot = { 0 };

	if (c->cb == NULL || c->seen_drops == NULL)
		return;
	b = (const void *)((const char *)c->cb + c->cb->cpubuf_off);
	st = c->cb->cpustat_off ?
		(const void *)((const char *)c->cb + c->cb->cpustat_off) : NULL;
	for (uint32_t cpu = 0; cpu < c->cb->ncpus; cpu++) {
		uint64_t d = b[cpu].drops - c->seen_drops[cpu];
		char what[64];

		if (d) {
			snprintf(what, sizeof(what), "drop%s on CPU %u",
				 d > 1 ? "s" : "", cpu);
			drop_line(c, "DTRACEDROP_PRINCIPAL", d, what, "", 0);
		}
		c->seen_drops[cpu] = b[cpu].drops;
		if (st == NULL)
			continue;
		d = st[cpu].aggdrops - c->seen_stat[cpu].aggdrops;
		if (d) {
			snprintf(what, sizeof(what), "aggregation drop%s on "
				 "CPU %u", d > 1 ? "s" : "", cpu);
			drop_line(c, "DTRACEDROP_AGGREGATION", d, what, "", 0);
		}
#define DELTA(f) tot.f += st[cpu].f - c->seen_stat[cpu].f
		DELTA(dynvar_drops); DELTA(dynvar_dirty); DELTA(spec_drops);
		DELTA(spec_busy); DELTA(spec_unavail); DELTA(stkdrops);
#undef DELTA
		c->seen_stat[cpu] = st[cpu];
	}
	tot.dynvar_drops += c->cb->dynvar_drops - c->seen_dyn;
	c->seen_dyn = c->cb->dynvar_drops;
	drop_line(c, "DTRACEDROP_DYNAMIC", tot.dynvar_drops,
		  "dynamic variable drop", "", 1);
	drop_line(c, "DTRACEDROP_DYNDIRTY", tot.dynvar_dirty,
		  "dynamic variable drop", " with non-empty dirty list", 1);
	drop_line(c, "DTRACEDROP_SPEC", tot.spec_drops, "speculative drop",
		  "", 1);
	drop_line(c, "DTRACEDROP_SPECBUSY", tot.spec_busy,
		  "failed speculation", " (available buffer(s) still busy)", 1);
	drop_line(c, "DTRACEDROP_SPECUNAVAIL", tot.spec_unavail,
		  "failed speculation", " (no speculative buffer available)",
		  1);
	drop_line(c, "DTRACEDROP_STKSTROVERFLOW", tot.stkdrops,
		  "jstack()/ustack() string table overflow", "", 1);
	fflush(c->err);
}

int
mt_consume_final(struct mt_consumer *c)
{
	fputc('\n', c->out);
	agg_print_all(c, c->out);
	fflush(c->out);
	return 0;
}
