/*
 * The report page: the model as JSON in a <script type="application/json">
 * element, then d3, d3-flame-graph and report.js, all inline: the page
 * fetches nothing.  The libraries are linked into machtrace (web.S).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "impl.h"
#include "machtrace/esc.h"
#include "machtrace/json.h"

/* The page's files, linked in by web.S. */
extern const char mt_web_d3[], mt_web_d3_end[];
extern const char mt_web_flame[], mt_web_flame_end[];
extern const char mt_web_js[], mt_web_js_end[];
extern const char mt_web_css[], mt_web_css_end[];

/* On-CPU slices the page draws at most; beyond, the timeline says so. */
#define MAX_SLICES	200000
/* The heatmap's time columns. */
#define HEAT_COLS	80

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
put_meta(struct rp *r, struct mt_json *j)
{
	mt_json_open(j, "meta", MT_JSON_ARRAY);
	for (size_t i = 0; i < r->nmeta; i++) {
		mt_json_open(j, NULL, MT_JSON_ARRAY);
		mt_json_strz(j, NULL, r->meta[i].key);
		mt_json_strz(j, NULL, r->meta[i].value);
		mt_json_close(j);
	}
	mt_json_close(j);
}

static void
put_events(struct rp *r, struct mt_json *j)
{
	if (r->nnames > 0)
		qsort(r->names, r->nnames, sizeof(*r->names), cmp_name_count);
	/* the name map's indexes are stale from here on */
	free(r->name_map.slots);
	memset(&r->name_map, 0, sizeof(r->name_map));
	mt_json_open(j, "span", MT_JSON_OBJECT);
	mt_json_uint(j, "t0", r->nevents ? r->t0 : 0);
	mt_json_uint(j, "t1", r->t1);
	mt_json_uint(j, "events", r->nevents);
	mt_json_close(j);
	mt_json_open(j, "events", MT_JSON_ARRAY);
	for (size_t i = 0; i < r->nnames; i++) {
		mt_json_open(j, NULL, MT_JSON_ARRAY);
		mt_json_strz(j, NULL, r->names[i].name);
		mt_json_uint(j, NULL, r->names[i].count);
		mt_json_close(j);
	}
	mt_json_close(j);
	mt_json_bool(j, "drops_known", r->have_drops);
	mt_json_open(j, "cpus", MT_JSON_ARRAY);
	for (size_t i = 0; i < r->ncpus; i++) {
		mt_json_open(j, NULL, MT_JSON_OBJECT);
		mt_json_uint(j, "cpu", i);
		mt_json_uint(j, "events", r->cpus[i].nevents);
		mt_json_uint(j, "discarded", r->cpus[i].discarded);
		mt_json_close(j);
	}
	mt_json_close(j);
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
		if (t == NULL || rp_grow(&t->slices, &t->slices_cap,
					 t->nslices, sizeof(*t->slices)))
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
put_timeline(struct rp *r, struct mt_json *j)
{
	size_t budget = MAX_SLICES;
	int truncated = 0;

	if (r->nswitches == 0) {
		mt_json_null(j, "timeline");
		return;
	}
	mt_json_open(j, "timeline", MT_JSON_OBJECT);
	mt_json_uint(j, "switches", r->nswitches);
	mt_json_open(j, "threads", MT_JSON_ARRAY);
	for (size_t i = 0; i < r->nthreads; i++) {
		struct rp_thread *t = &r->threads[i];
		size_t n = t->nslices < budget ? t->nslices : budget;

		if (n < t->nslices)
			truncated = 1;
		budget -= n;
		mt_json_open(j, NULL, MT_JSON_OBJECT);
		mt_json_int(j, "tid", t->tid);
		mt_json_strz(j, "comm", t->comm);
		mt_json_uint(j, "oncpu", t->oncpu);
		mt_json_uint(j, "nslices", t->nslices);
		mt_json_open(j, "slices", MT_JSON_ARRAY);
		for (size_t k = 0; k < n; k++) {
			mt_json_open(j, NULL, MT_JSON_ARRAY);
			mt_json_uint(j, NULL, t->slices[k].start - r->t0);
			mt_json_uint(j, NULL, t->slices[k].end - r->t0);
			mt_json_int(j, NULL, t->slices[k].cpu);
			mt_json_close(j);
		}
		mt_json_close(j);
		mt_json_close(j);
	}
	mt_json_close(j);
	mt_json_bool(j, "truncated", truncated);
	mt_json_close(j);
}

static uint64_t
pct(const uint64_t *v, size_t n, unsigned p)
{
	size_t i = (n * p + 99) / 100;

	return v[i ? i - 1 : 0];
}

static void
put_lat_table(struct rp_lat_table *t, struct mt_json *j, const char *key,
	      const char *source)
{
	if (!t->present) {
		mt_json_null(j, key);
		return;
	}
	mt_json_open(j, key, MT_JSON_OBJECT);
	mt_json_strz(j, "source", source);
	mt_json_open(j, "rows", MT_JSON_ARRAY);
	for (size_t i = 0; i < t->nrows; i++) {
		struct rp_row *row = &t->rows[i];
		uint64_t sum = 0;

		mt_json_open(j, NULL, MT_JSON_OBJECT);
		mt_json_strz(j, "name", row->name);
		mt_json_uint(j, "sends", row->sends);
		mt_json_uint(j, "receives", row->receives);
		mt_json_uint(j, "calls", row->nlat);
		if (row->nlat) {
			qsort(row->lat, row->nlat, sizeof(*row->lat), cmp_u64);
			for (size_t k = 0; k < row->nlat; k++)
				sum += row->lat[k];
			mt_json_uint(j, "min", row->lat[0]);
			mt_json_uint(j, "p50", pct(row->lat, row->nlat, 50));
			mt_json_uint(j, "p95", pct(row->lat, row->nlat, 95));
			mt_json_uint(j, "max", row->lat[row->nlat - 1]);
			mt_json_uint(j, "mean", sum / row->nlat);
		}
		mt_json_close(j);
	}
	mt_json_close(j);
	mt_json_close(j);
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
put_heatmap(struct rp *r, struct mt_json *j)
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
		mt_json_null(j, "heatmap");
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
	mt_json_open(j, "heatmap", MT_JSON_OBJECT);
	mt_json_strz(j, "source", src);
	mt_json_int(j, "cols", HEAT_COLS);
	mt_json_uint(j, "dt", dt);
	mt_json_int(j, "lo", lo);
	mt_json_int(j, "rows", rows);
	mt_json_uint(j, "calls", t->npoints);
	mt_json_open(j, "cells", MT_JSON_ARRAY);
	for (int y = 0; y < rows; y++)
		for (int x = 0; x < HEAT_COLS; x++) {
			uint64_t n = cells[(size_t)y * HEAT_COLS + x];

			if (n == 0)
				continue;
			mt_json_open(j, NULL, MT_JSON_ARRAY);
			mt_json_int(j, NULL, x);
			mt_json_int(j, NULL, y);
			mt_json_uint(j, NULL, n);
			mt_json_close(j);
		}
	mt_json_close(j);
	mt_json_close(j);
	free(cells);
	return 0;
}

static void
put_node(const struct rp_node *n, struct mt_json *j, const char *key)
{
	mt_json_open(j, key, MT_JSON_OBJECT);
	mt_json_strz(j, "name", n->name);
	mt_json_uint(j, "value", n->value);
	mt_json_open(j, "children", MT_JSON_ARRAY);
	for (size_t i = 0; i < n->nkids; i++)
		put_node(n->kids[i], j, NULL);
	mt_json_close(j);
	mt_json_close(j);
}

/* The model, compact, every string safe inside the <script> element. */
static int
put_json(struct rp *r, FILE *fp, const char *title)
{
	struct mt_json jw, *j = &jw;

	mt_json_init(j, fp, MT_JSON_COMPACT | MT_JSON_SCRIPT);
	mt_json_open(j, NULL, MT_JSON_OBJECT);
	mt_json_strz(j, "title", title);
	put_meta(r, j);
	put_events(r, j);
	if (finish_slices(r) != 0)
		return -1;
	put_timeline(r, j);
	put_lat_table(&r->lat[RP_LAT_RPC], j, "rpc",
		      "ipc_send / ipc_receive: the send of request ROUTINE to "
		      "the receive of ROUTINE-reply, paired by the reply port "
		      "(else by thread)");
	put_lat_table(&r->lat[RP_LAT_TRAP], j, "traps",
		      "syscall_entry_* to syscall_exit_* of one thread (the "
		      "event's tid, else its CPU's thread by sched_switch)");
	if (put_heatmap(r, j) != 0)
		return -1;
	mt_json_uint(j, "samples", r->nsamples);
	if (r->nsamples)
		put_node(&r->root, j, "flame");
	else
		mt_json_null(j, "flame");
	mt_json_close(j);
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
	mt_html_escape(fp, title);
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
