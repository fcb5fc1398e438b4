/*
 * The text output (out_text): dtrace(1)'s words and layout.  Each record
 * starts with the CPU/ID/FUNCTION:NAME prefix (only FUNCTION:NAME when
 * _DTRACE_TESTING is set) and ends with a newline; the values are printed
 * by print.c, datum.c, ptype.c and aggprint.c.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "impl.h"

/* "entry", "x-entry" (and "return"...) but not "carpentry". */
static int
ends_with_word(const char *n, const char *w)
{
	size_t ln = strlen(n), lw = strlen(w);

	return ln >= lw && strcmp(n + ln - lw, w) == 0 &&
	       (ln == lw || n[ln - lw - 1] == '-');
}

/* dt_flowindent: " -> func" on entry, " <- func" on return, indented. */
static void
flow_name(struct mt_consumer *c, const struct mt_probe *p, char *buf,
	  size_t len)
{
	const char *prov = img_str(c, p->prov), *name = img_str(c, p->name);
	int sys = strcmp(prov, "syscall") == 0;

	if (ends_with_word(name, "entry")) {
		snprintf(buf, len, "%*s%s%s", c->indent, "",
			 sys ? " => " : " -> ", img_str(c, p->func));
		c->indent += 2;
	} else if (ends_with_word(name, "return")) {
		if (c->indent >= 2)
			c->indent -= 2;
		snprintf(buf, len, "%*s%s%s", c->indent, "",
			 sys ? " <= " : " <- ", img_str(c, p->func));
	} else {
		snprintf(buf, len, "%*s| %s:%s", c->indent, "",
			 img_str(c, p->func), name);
	}
}

static void
text_rec_begin(struct mt_consumer *c, const struct mt_rechdr *h,
	       uint32_t epid, const struct mt_probe *p)
{
	int testing = getenv("_DTRACE_TESTING") != NULL;
	char name[512];

	(void)epid;
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
		flow_name(c, p, name, sizeof(name));
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
text_rec_end(struct mt_consumer *c)
{
	if (!c->opts->quiet)
		fputc('\n', c->out);
}

static void
text_trace(struct mt_consumer *c, const struct mt_rec *r,
	   const struct mt_rec_info *ri, const uint8_t *d)
{
	datum_trace(c, c->out, r, ri, d);
}

static void
text_message(struct mt_consumer *c, const char *msg,
	     const struct mt_pfarg *args, int nargs)
{
	(void)args, (void)nargs;
	fputs(msg, c->out);
}

static void
text_printa(struct mt_consumer *c, const char *fmt, const uint32_t *aggids,
	    int n)
{
	agg_printa(c, c->out, fmt, aggids, n);
}

static void
text_stack(struct mt_consumer *c, int user, const uint8_t *p, uint32_t size)
{
	datum_stack(c, c->out, user, p, size);
}

static void
text_tracemem(struct mt_consumer *c, const uint8_t *p, size_t n)
{
	mt_print_rawbytes(c->out, p, n);
}

static void
text_sym(struct mt_consumer *c, const struct mt_rec_info *ri,
	 const uint8_t *d)
{
	print_key_datum(c, c->out, ri, d);
}

/*
 * print(): laid out by the value's type description (rec_info.tdesc, see
 * ptype.c), else like trace().  A pointer to a struct, union or array
 * has a second rec with the bytes it points to (at most printsize).
 */
void
text_print(struct mt_consumer *c, const struct mt_action *a,
	   const uint8_t *data)
{
	const struct mt_rec *r = a->nrecs ? &c->prog->recs[a->rec0] : NULL;
	const struct mt_rec_info *ri = c->prog->rec_info ?
		&c->prog->rec_info[a->rec0] : NULL;
	uint32_t have;

	if (r == NULL)
		return;
	if (ri == NULL || ri->tdesc == NULL) {
		datum_trace(c, c->out, r, ri, data + r->offset);
		return;
	}
	if (!c->opts->quiet)
		fputc('\n', c->out);
	if (ri->tdesc[0] == 'p' && a->nrecs > 1 && ri[1].tdesc) {
		const struct mt_rec *m = &c->prog->recs[a->rec0 + 1];

		have = m->size;
		if (c->opts->printsize && c->opts->printsize < have)
			have = (uint32_t)c->opts->printsize;
		print_tdesc(c->out, ri[1].tdesc, data + r->offset,
			    data + m->offset, have);
		return;
	}
	print_tdesc(c->out, ri->tdesc, NULL, data + r->offset, r->size);
}

static void
text_system(struct mt_consumer *c, const char *cmd)
{
	fflush(c->out);
	fflush(c->err);
	if (system(cmd) == -1)
		fprintf(c->err, "dtrace: system() failed\n");
}

static void
text_freopen(struct mt_consumer *c, const char *path)
{
	FILE *f;

	fflush(c->out);
	if (path == NULL || path[0] == '\0') {
		if (c->out != c->orig_out) {
			fclose(c->out);
			c->out = c->orig_out;
		}
		return;
	}
	if ((f = fopen(path, "a")) == NULL) {
		fprintf(c->err, "dtrace: couldn't freopen() \"%s\"\n", path);
		return;
	}
	if (c->out != c->orig_out)
		fclose(c->out);
	c->out = f;
}

static void
text_ftruncate(struct mt_consumer *c)
{
	fflush(c->out);
	if (ftruncate(fileno(c->out), 0) == 0)
		fseeko(c->out, 0, SEEK_SET);
}

/* Text says exits, errors and drops on stderr only (the callers do). */
static void
text_exit(struct mt_consumer *c, int status)
{
	(void)c, (void)status;
}

static void
text_liberr(struct mt_consumer *c, const char *msg)
{
	(void)c, (void)msg;
}

static void
text_error(struct mt_consumer *c, const struct mt_rechdr *h,
	   const struct mt_errrec *e, const struct mt_probe *p,
	   const char *fault, uint32_t offset, const char *msg)
{
	(void)c, (void)h, (void)e, (void)p, (void)fault, (void)offset;
	(void)msg;
}

static void
text_drop(struct mt_consumer *c, int kind, int cpu, uint64_t n,
	  const char *msg)
{
	(void)c, (void)kind, (void)cpu, (void)n, (void)msg;
}

/* Like dtrace(1), to the original output even after freopen(). */
static void
text_finish(struct mt_consumer *c, int aggs)
{
	if (!aggs)
		return;
	fflush(c->out);
	fputc('\n', c->orig_out);
	agg_print_all(c, c->orig_out);
	fflush(c->orig_out);
}

const struct out_ops out_text = {
	.rec_begin = text_rec_begin, .rec_end = text_rec_end,
	.trace = text_trace, .message = text_message,
	.printa = text_printa, .stack = text_stack,
	.tracemem = text_tracemem, .sym = text_sym, .print = text_print,
	.exit = text_exit, .system = text_system, .freopen = text_freopen,
	.ftruncate = text_ftruncate, .liberr = text_liberr,
	.error = text_error, .drop = text_drop, .finish = text_finish,
};
