/*
 * The report page: the model as JSON in a <script type="application/json">
 * element, then d3, d3-flame-graph and report.js, all inline: the page
 * fetches nothing.  The libraries are linked into machtrace (web.S).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"

/* The page's files, linked in by web.S. */
extern const char mt_web_d3[], mt_web_d3_end[];
extern const char mt_web_flame[], mt_web_flame_end[];
extern const char mt_web_js[], mt_web_js_end[];
extern const char mt_web_css[], mt_web_css_end[];

/* On-CPU slices the page draws at most; beyond, the timeline says so. */
#define MAX_SLICES	200000
/* The heatmap's time columns. */
#define HEAT_COLS	80

static void
put_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			/* < > & escaped too: the JSON sits inside <script> */
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

static void
put_html(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default: fputc(*s, fp);
		}
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_name_count(const void *a, const void *b)
{
	const struct rp_name *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void
put_meta(struct rp *r, FILE *fp)
{
	fputs("\"meta\":[", fp);
	for (size_t i = 0; i < r->nmeta; i++) {
		fputs(i ? ",[" : "[", fp);
		put_str(fp, r->meta[i].key);
		fputc(',', fp);
		put_str(fp, r->meta[i].value);
		fputc(']', fp);
	}
	fputs("],", fp);
}

static void
put_events(struct rp *r, FILE *fp)
{
	if (r->nnames > 0)
		qsort(r->names, r->nnames, sizeof(*r->names), cmp_name_count);
	/* the name map's indexes are stale from here on */
	mt_hmap_free(&r->name_map);
	fprintf(fp, "\"span\":{\"t0\":%" PRIu64 ",\"t1\":%" PRIu64
		",\"events\":%" PRIu64 "},\"events\":[",
		r->nevents ? r->t0 : 0, r->t1, r->nevents);
	for (size_t i = 0; i < r->nnames; i++) {
		fputs(i ? ",[" : "[", fp);
		put_str(fp, r->names[i].name);
		fprintf(fp, ",%" PRIu64 "]", r->names[i].count);
	}
	fprintf(fp, "],\"drops_known\":%s,\"cpus\":[",
		r->have_drops ? "true" : "false");
	for (size_t i = 0; i < r->ncpus; i++)
		fprintf(fp, "%s{\"cpu\":%zu,\"events\":%" PRIu64
			",\"discarded\":%" PRIu64 "}", i ? "," : "", i,
			r->cpus[i].nevents, r->cpus[i].discarded);
	fputs("],", fp);
}

/* Close the slices still open at the end of the trace. */
static int
finish_slices(struct rp *r)
{
	for (size_t c = 0; c < r->ncpus; c++) {
		struct rp_cpu *pc = &r->cpus[c];
		struct rp_thread *t = NULL;

		if (!pc->running || r->t1 < pc->cur_since)
			continue;
		for (size_t i = 0; i < r->nthreads; i++)
			if (r->threads[i].tid == pc->cur_tid)
				t = &r->threads[i];
		if (t == NULL ||
		    MT_VEC_ROOM(t->slices, t->nslices, t->slices_cap, 16))
			return -1;
		t->slices[t->nslices].start = pc->cur_since;
		t->slices[t->nslices].end = r->t1;
		t->slices[t->nslices].cpu = (int)c;
		t->oncpu += r->t1 - pc->cur_since;
		t->nslices++;
		pc->running = 0;
	}
	return 0;
}

static void
put_timeline(struct rp *r, FILE *fp)
{
	size_t budget = MAX_SLICES;
	int truncated = 0;

	if (r->nswitches == 0) {
		fputs("\"timeline\":null,", fp);
		return;
	}
	fprintf(fp, "\"timeline\":{\"switches\":%" PRIu64 ",\"threads\":[",
		r->nswitches);
	for (size_t i = 0; i < r->nthreads; i++) {
		struct rp_thread *t = &r->threads[i];
		size_t n = t->nslices < budget ? t->nslices : budget;

		if (n < t->nslices)
			truncated = 1;
		budget -= n;
		fprintf(fp, "%s{\"tid\":%" PRId64 ",\"comm\":", i ? "," : "",
			t->tid);
		put_str(fp, t->comm != NULL ? t->comm : "");
		fprintf(fp, ",\"oncpu\":%" PRIu64 ",\"nslices\":%zu,"
			"\"slices\":[", t->oncpu, t->nslices);
		for (size_t k = 0; k < n; k++)
			fprintf(fp, "%s[%" PRIu64 ",%" PRIu64 ",%d]",
				k ? "," : "", t->slices[k].start - r->t0,
				t->slices[k].end - r->t0, t->slices[k].cpu);
		fputs("]}", fp);
	}
	fprintf(fp, "],\"truncated\":%s},", truncated ? "true" : "false");
}

static uint64_t
pct(const uint64_t *v, size_t n, unsigned p)
{
	size_t i = (n * p + 99) / 100;

	return v[i ? i - 1 : 0];
}

static void
put_lat_table(struct rp_lat_table *t, FILE *fp, const char *key,
	      const char *source)
{
	if (!t->present) {
		fprintf(fp, "\"%s\":null,", key);
		return;
	}
	fprintf(fp, "\"%s\":{\"source\":", key);
	put_str(fp, source);
	fputs(",\"rows\":[", fp);
	for (size_t i = 0; i < t->nrows; i++) {
		struct rp_row *row = &t->rows[i];
		uint64_t sum = 0;

		fputs(i ? ",{\"name\":" : "{\"name\":", fp);
		put_str(fp, row->name);
		fprintf(fp, ",\"sends\":%" PRIu64 ",\"receives\":%" PRIu64
			",\"calls\":%zu", row->sends, row->receives, row->nlat);
		if (row->nlat) {
			qsort(row->lat, row->nlat, sizeof(*row->lat), cmp_u64);
			for (size_t k = 0; k < row->nlat; k++)
				sum += row->lat[k];
			fprintf(fp, ",\"min\":%" PRIu64 ",\"p50\":%" PRIu64
				",\"p95\":%" PRIu64 ",\"max\":%" PRIu64
				",\"mean\":%" PRIu64, row->lat[0],
				pct(row->lat, row->nlat, 50),
				pct(row->lat, row->nlat, 95),
				row->lat[row->nlat - 1], sum / row->nlat);
		}
		fputc('}', fp);
	}
	fputs("]},", fp);
}

static int
log2_bucket(uint64_t v)
{
	int b = 0;

	while (v > 1) {
		v >>= 1;
		b++;
	}
	return b;
}

/*
 * The heatmap: completed calls by the time they completed (columns) and
 * the power of two of their latency (rows), of RPCs when any was matched,
 * else of traps.
 */
static int
put_heatmap(struct rp *r, FILE *fp)
{
	struct rp_lat_table *t = &r->lat[RP_LAT_RPC];
	const char *src = "rpc";
	uint64_t dt, *cells;
	int lo = 64, hi = 0, rows;

	if (t->npoints == 0) {
		t = &r->lat[RP_LAT_TRAP];
		src = "trap";
	}
	if (t->npoints == 0) {
		fputs("\"heatmap\":null,", fp);
		return 0;
	}
	for (size_t i = 0; i < t->npoints; i++) {
		int b = log2_bucket(t->points[i].lat);

		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	rows = hi - lo + 1;
	/* ceil((t1 - t0 + 1) / HEAT_COLS), which cannot wrap to 0 */
	dt = (r->t1 - r->t0) / HEAT_COLS + 1;
	cells = calloc((size_t)rows * HEAT_COLS, sizeof(*cells));
	if (cells == NULL)
		return -1;
	for (size_t i = 0; i < t->npoints; i++) {
		uint64_t col = (t->points[i].ts - r->t0) / dt;

		if (col >= HEAT_COLS)
			col = HEAT_COLS - 1;
		cells[(size_t)(log2_bucket(t->points[i].lat) - lo) * HEAT_COLS
		      + col]++;
	}
	fprintf(fp, "\"heatmap\":{\"source\":\"%s\",\"cols\":%d,\"dt\":%"
		PRIu64 ",\"lo\":%d,\"rows\":%d,\"calls\":%zu,\"cells\":[",
		src, HEAT_COLS, dt, lo, rows, t->npoints);
	for (int y = 0, first = 1; y < rows; y++)
		for (int x = 0; x < HEAT_COLS; x++) {
			uint64_t n = cells[(size_t)y * HEAT_COLS + x];

			if (n == 0)
				continue;
			fprintf(fp, "%s[%d,%d,%" PRIu64 "]", first ? "" : ",",
				x, y, n);
			first = 0;
		}
	fputs("]},", fp);
	free(cells);
	return 0;
}

static void
put_node(const struct rp_node *n, FILE *fp)
{
	fputs("{\"name\":", fp);
	put_str(fp, n->name);
	fprintf(fp, ",\"value\":%" PRIu64 ",\"children\":[", n->value);
	for (size_t i = 0; i < n->nkids; i++) {
		if (i)
			fputc(',', fp);
		put_node(n->kids[i], fp);
	}
	fputs("]}", fp);
}

static int
put_json(struct rp *r, FILE *fp, const char *title)
{
	fputs("{\"title\":", fp);
	put_str(fp, title);
	fputc(',', fp);
	put_meta(r, fp);
	put_events(r, fp);
	if (finish_slices(r) != 0)
		return -1;
	put_timeline(r, fp);
	put_lat_table(&r->lat[RP_LAT_RPC], fp, "rpc",
		      "ipc_send / ipc_receive: the send of request ROUTINE to "
		      "the receive of ROUTINE-reply, paired by the reply port "
		      "(else by thread)");
	put_lat_table(&r->lat[RP_LAT_TRAP], fp, "traps",
		      "syscall_entry_* to syscall_exit_* of one thread (the "
		      "event's tid, else its CPU's thread by sched_switch)");
	if (put_heatmap(r, fp) != 0)
		return -1;
	fprintf(fp, "\"samples\":%" PRIu64 ",\"flame\":", r->nsamples);
	if (r->nsamples)
		put_node(&r->root, fp);
	else
		fputs("null", fp);
	fputc('}', fp);
	return 0;
}

static void
put_blob(FILE *fp, const char *start, const char *end)
{
	fwrite(start, 1, (size_t)(end - start), fp);
}

int
rp_write_html(struct rp *r, FILE *fp, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "\n<title>", fp);
	put_html(fp, title);
	fputs("</title>\n<style>\n", fp);
	put_blob(fp, mt_web_css, mt_web_css_end);
	fputs("</style></head><body>\n<div id=\"report\"></div>\n"
	      "<script type=\"application/json\" id=\"mt-data\">", fp);
	if (put_json(r, fp, title) != 0)
		return -1;
	fputs("</script>\n<script>\n", fp);
	put_blob(fp, mt_web_d3, mt_web_d3_end);
	fputs("\n</script>\n<script>\n", fp);
	put_blob(fp, mt_web_flame, mt_web_flame_end);
	fputs("\n</script>\n<script>\n", fp);
	put_blob(fp, mt_web_js, mt_web_js_end);
	fputs("\n</script>\n</body></html>\n", fp);
	if (fflush(fp) != 0 || ferror(fp)) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	return 0;
}
