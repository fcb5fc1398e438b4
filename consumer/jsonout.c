/*
 * -xoformat=json: every output of a session as one JSON document, laid
 * out as FreeBSD's dtrace does with libxo (dtrace(1), STRUCTURED OUTPUT):
 *
 *   {"dtrace": {"probes": [ RECORD... ], "aggregations": [ AGG... ],
 *               "exit-status": N}}
 *
 * A RECORD has the probe's "timestamp", "cpu", "id", "enabled-probe-id",
 * "provider", "module", "function", "name" and an "output" list, one
 * object per value: {"value": ...} for trace(), {"message": ...} for
 * printf() (its arguments, raw, in "args"), {"stack-frames": [...]},
 * {"sym": ...}, {"aggregation-name": ..., "aggregation-data": [...]} for
 * printa(), ...  Drops and errors are pseudo-probes of module and
 * function "INTERNAL" named "DROP" and "ERROR" in the same list (and are
 * reported on stderr as in text mode).  Values are the ones the text
 * output shows, computed by the same code (print.c, datum.c, aggsort.c).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "impl.h"

static void
doc_open(struct mt_consumer *c)
{
	if (c->jstate != JS_NONE)
		return;
	mt_json_init(&c->jw, c->out, 0);
	mt_json_open(&c->jw, NULL, 0);
	mt_json_open(&c->jw, "dtrace", 0);
	mt_json_open(&c->jw, "probes", 1);
	c->jstate = JS_OPEN;
}

static void
probe_desc(struct mt_consumer *c, const char *prov, const char *mod,
	   const char *func, const char *name)
{
	mt_json_strz(&c->jw, "provider", prov);
	mt_json_strz(&c->jw, "module", mod);
	mt_json_strz(&c->jw, "function", func);
	mt_json_strz(&c->jw, "name", name);
}

static void
js_probe_begin(struct mt_consumer *c, const struct mt_rechdr *h,
	       uint32_t epid, const struct mt_probe *p)
{
	doc_open(c);
	mt_json_open(&c->jw, NULL, 0);
	mt_json_uint(&c->jw, "timestamp", h->timestamp);
	mt_json_uint(&c->jw, "cpu", h->cpu);
	mt_json_uint(&c->jw, "id", p->id);
	mt_json_uint(&c->jw, "enabled-probe-id", epid);
	probe_desc(c, img_str(c, p->prov), img_str(c, p->mod),
		   img_str(c, p->func), img_str(c, p->name));
	mt_json_open(&c->jw, "output", 1);
}

static void
js_probe_end(struct mt_consumer *c)
{
	mt_json_close(&c->jw);	/* output */
	mt_json_close(&c->jw);	/* the probe */
}

/* {key: v} in the current list. */
void
js_int(struct mt_consumer *c, const char *key, int64_t v)
{
	mt_json_open(&c->jw, NULL, 0);
	mt_json_int(&c->jw, key, v);
	mt_json_close(&c->jw);
}

static void
js_text(struct mt_consumer *c, const char *key, const char *s)
{
	mt_json_open(&c->jw, NULL, 0);
	mt_json_strz(&c->jw, key, s);
	mt_json_close(&c->jw);
}

static void
hex_member(struct mt_consumer *c, const char *key, const uint8_t *p, size_t n)
{
	char *hex = malloc(2 * n + 1);

	if (hex == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", p[i]);
	hex[2 * n] = '\0';
	mt_json_str(&c->jw, key, hex, 2 * n);
	free(hex);
}

/* {key: "hex"}: what text shows as a byte dump. */
static void
js_hex(struct mt_consumer *c, const char *key, const uint8_t *p, size_t n)
{
	mt_json_open(&c->jw, NULL, 0);
	hex_member(c, key, p, n);
	mt_json_close(&c->jw);
}

/*
 * The length of the string the bytes hold as dt_print_bytes sees one
 * (printable text, then only NULs), or -1: they print as a byte dump.
 */
static long
string_len(const uint8_t *p, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if ((p[i] >= ' ' && p[i] <= '~') || (p[i] >= '\t' && p[i] <= '\r')
		    || p[i] == '\b' || p[i] == '\a')
			continue;
		if (p[i] != '\0' || i == 0)
			return -1;
		for (j = i + 1; j < n && p[j] == '\0'; j++)
			;
		return j == n ? (long)i : -1;
	}
	return (long)n;
}

/* {"value": the string in the n bytes at d (up to a NUL)}. */
void
js_string(struct mt_consumer *c, const uint8_t *d, size_t n)
{
	mt_json_open(&c->jw, NULL, 0);
	mt_json_str(&c->jw, "value", (const char *)d,
		    strnlen((const char *)d, n));
	mt_json_close(&c->jw);
}

/* Bytes as text shows them: {"value": string} or {"bytes": "hex"}. */
void
js_bytes(struct mt_consumer *c, const uint8_t *p, size_t n)
{
	long len = c->opts->rawbytes ? -1 : string_len(p, n);

	mt_json_open(&c->jw, NULL, 0);
	if (len >= 0)
		mt_json_str(&c->jw, "value", (const char *)p, (size_t)len);
	else
		hex_member(c, "bytes", p, n);
	mt_json_close(&c->jw);
}

/* One frame: "symbol" as text shows it, split into module, name, offset. */
static void
frame(struct mt_consumer *c, const char *sym)
{
	const char *tick = strchr(sym, '`'), *plus;

	mt_json_open(&c->jw, NULL, 0);
	mt_json_strz(&c->jw, "symbol", sym);
	if (tick) {
		mt_json_str(&c->jw, "module", sym, (size_t)(tick - sym));
		plus = strchr(tick + 1, '+');
		mt_json_str(&c->jw, "name", tick + 1, plus ? (size_t)(plus -
			    tick - 1) : strlen(tick + 1));
		if (plus)
			mt_json_strz(&c->jw, "offset", plus + 1);
	}
	mt_json_close(&c->jw);
}

static void
frame_cb(void *arg, const char *sym)
{
	frame(arg, sym);
}

static void
frames(struct mt_consumer *c, int user, const uint8_t *p, uint32_t size)
{
	mt_json_open(&c->jw, user ? "ustack-frames" : "stack-frames", 1);
	mt_stack_frames(&c->syms, user, p, size, frame_cb, c);
	mt_json_close(&c->jw);
}

void
js_stack(struct mt_consumer *c, int user, const uint8_t *p, uint32_t size)
{
	mt_json_open(&c->jw, NULL, 0);
	frames(c, user, p, size);
	mt_json_close(&c->jw);
}

static const char *
sym_key(uint16_t kind)
{
	switch (kind) {
	case MT_TI_SYM: return "sym";
	case MT_TI_MOD: return "mod";
	case MT_TI_USYM: return "usym";
	case MT_TI_UMOD: return "umod";
	default: return "uaddr";
	}
}

/* The members of a sym() ... uaddr() value ("object", "name" for sym). */
static void
sym_members(struct mt_consumer *c, const struct mt_rec_info *ri,
	    const uint8_t *d)
{
	char buf[512];
	const char *tick;

	sym_text(c, ri, d, buf, sizeof(buf));
	mt_json_strz(&c->jw, sym_key(ri->kind), buf);
	if (ri->kind == MT_TI_SYM && (tick = strchr(buf, '`')) != NULL) {
		mt_json_str(&c->jw, "object", buf, (size_t)(tick - buf));
		mt_json_strz(&c->jw, "name", tick + 1);
	}
}

void
js_sym(struct mt_consumer *c, const struct mt_rec_info *ri, const uint8_t *d)
{
	mt_json_open(&c->jw, NULL, 0);
	sym_members(c, ri, d);
	mt_json_close(&c->jw);
}

int
js_symkind(uint16_t k)
{
	return k == MT_TI_SYM || k == MT_TI_MOD || k == MT_TI_USYM ||
	       k == MT_TI_UMOD || k == MT_TI_UADDR;
}

/* trace(): the value datum_trace() prints, by size and sign. */
static void
js_trace(struct mt_consumer *c, const struct mt_rec *r,
	 const struct mt_rec_info *ri, const uint8_t *d)
{
	uint32_t size = r->size;
	int sign;

	if (c->opts->rawbytes) {
		js_hex(c, "bytes", d, size);
		return;
	}
	if (r->kind == MT_REC_STR || (ri && ri->kind == MT_TI_STR)) {
		js_string(c, d, size);
		return;
	}
	if (r->kind == MT_REC_STACK) {
		js_stack(c, (r->flags & MT_RF_UPID) != 0, d, size);
		return;
	}
	if (r->kind == MT_REC_MEM) {
		/* char arrays as strings, other memory as a byte dump */
		if (ri && ri->ctype && strncmp(ri->ctype, "char [", 6) == 0)
			js_bytes(c, d, size);
		else
			js_hex(c, "bytes", d, size);
		return;
	}
	if (ri && js_symkind(ri->kind)) {
		js_sym(c, ri, d);
		return;
	}
	sign = ri ? ri->kind == MT_TI_INT : (r->flags & MT_RF_SIGNED) != 0;
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		js_hex(c, "bytes", d, size);
		return;
	}
	mt_json_open(&c->jw, NULL, 0);
	if (sign)
		mt_json_int(&c->jw, "value", datum_int(d, size, 1));
	else
		mt_json_uint(&c->jw, "value", (uint64_t)datum_int(d, size,
			     size == 8));
	mt_json_close(&c->jw);
}

/* One printf()/printa() argument, raw. */
static void
js_arg(struct mt_consumer *c, const struct mt_pfarg *a)
{
	const uint8_t *d = a->data;
	struct mt_rec_info ri = { a->kind, 0, a->size, NULL, NULL };

	switch (a->kind) {
	case MT_TI_INT:
	case MT_TI_UINT:
		if (a->size == 1 || a->size == 2 || a->size == 4 ||
		    a->size == 8) {
			mt_json_open(&c->jw, NULL, 0);
			if (a->kind == MT_TI_INT)
				mt_json_int(&c->jw, "value",
					    datum_int(d, a->size, 1));
			else
				mt_json_uint(&c->jw, "value", (uint64_t)
					     datum_int(d, a->size, 0));
			mt_json_close(&c->jw);
			return;
		}
		break;
	case MT_TI_STR:
		js_string(c, d, a->size);
		return;
	case MT_TI_STACK:
	case MT_TI_USTACK:
		js_stack(c, a->kind == MT_TI_USTACK, d, a->size);
		return;
	default:
		if (js_symkind(a->kind)) {
			js_sym(c, &ri, d);
			return;
		}
		break;
	}
	js_bytes(c, d, a->size);
}

static void
js_printf(struct mt_consumer *c, const char *msg, const struct mt_pfarg *args,
	  int nargs)
{
	mt_json_open(&c->jw, NULL, 0);
	mt_json_strz(&c->jw, "message", msg);
	if (nargs > 0 && args) {
		mt_json_open(&c->jw, "args", 1);
		for (int i = 0; i < nargs; i++)
			if (args[i].agg == NULL)
				js_arg(c, &args[i]);
		mt_json_close(&c->jw);
	}
	mt_json_close(&c->jw);
}

/* system(): the command's output is captured into the document. */
static void
js_system(struct mt_consumer *c, const char *cmd)
{
	char *buf = NULL, chunk[4096];
	size_t len = 0, n;
	FILE *m = open_memstream(&buf, &len), *p;

	fflush(c->out);
	fflush(c->err);
	if (m == NULL)
		return;
	if ((p = popen(cmd, "r")) == NULL) {
		fprintf(c->err, "dtrace: system() failed\n");
	} else {
		while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
			fwrite(chunk, 1, n, m);
		pclose(p);
	}
	fclose(m);
	mt_json_open(&c->jw, NULL, 0);
	mt_json_strz(&c->jw, "system", cmd);
	mt_json_str(&c->jw, "output", buf ? buf : "", len);
	mt_json_close(&c->jw);
	free(buf);
}

static uint64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* An error record: the ERROR pseudo-probe (msg: stderr's words). */
static void
js_error(struct mt_consumer *c, const struct mt_rechdr *h,
	 const struct mt_errrec *e, const struct mt_probe *p,
	 const char *fault, uint32_t offset, const char *msg)
{
	char desc[1024];

	doc_open(c);
	mt_json_open(&c->jw, NULL, 0);
	mt_json_uint(&c->jw, "timestamp", h->timestamp);
	mt_json_uint(&c->jw, "cpu", h->cpu);
	mt_json_int(&c->jw, "id", -1);
	probe_desc(c, "dtrace", "INTERNAL", "INTERNAL", "ERROR");
	mt_json_uint(&c->jw, "enabled-probe-id", e->epid);
	if (p) {
		snprintf(desc, sizeof(desc), "%s:%s:%s:%s", img_str(c, p->prov),
			 img_str(c, p->mod), img_str(c, p->func),
			 img_str(c, p->name));
		mt_json_uint(&c->jw, "probe-id", p->id);
		mt_json_strz(&c->jw, "probe-description", desc);
	}
	mt_json_strz(&c->jw, "fault", fault);
	mt_json_uint(&c->jw, "address", e->addr);
	mt_json_uint(&c->jw, "offset", offset);
	mt_json_strz(&c->jw, "msg", msg);
	mt_json_close(&c->jw);
}

/* A drop report: the DROP pseudo-probe (cpu -1 for global counters). */
static void
js_drop(struct mt_consumer *c, int kind, int cpu, uint64_t n, const char *msg)
{
	if (kind < 0 || kind >= MT_JSON_NDROPKINDS)
		return;
	c->jdrops[kind] += n;
	doc_open(c);
	mt_json_open(&c->jw, NULL, 0);
	mt_json_int(&c->jw, "cpu", cpu);
	mt_json_int(&c->jw, "id", -1);
	probe_desc(c, "dtrace", "INTERNAL", "INTERNAL", "DROP");
	mt_json_uint(&c->jw, "timestamp", wall_ns());
	mt_json_uint(&c->jw, "count", n);
	mt_json_uint(&c->jw, "total", c->jdrops[kind]);
	mt_json_int(&c->jw, "kind", kind);
	mt_json_strz(&c->jw, "msg", msg);
	mt_json_close(&c->jw);
}

static void
js_finish(struct mt_consumer *c, int aggs)
{
	if (c->jstate == JS_CLOSED)
		return;
	doc_open(c);
	mt_json_close(&c->jw);	/* probes */
	if (aggs) {
		agg_snapshot(c);
		mt_json_open(&c->jw, "aggregations", 1);
		for (uint32_t id = 1; id <= c->prog->naggs; id++)
			if (!c->printed[id])
				js_agg_object(c, NULL, &id, 1);
		mt_json_close(&c->jw);
	}
	if (c->exited)
		mt_json_int(&c->jw, "exit-status", c->status);
	mt_json_close(&c->jw);	/* dtrace */
	mt_json_close(&c->jw);	/* the document */
	fflush(c->out);
	c->jstate = JS_CLOSED;
}

/* print(): {"print": the text print() lays out, "type"}. */
static void
js_print(struct mt_consumer *c, const struct mt_action *a,
	 const uint8_t *data)
{
	const struct mt_rec *r = a->nrecs ? &c->prog->recs[a->rec0] : NULL;
	const struct mt_rec_info *ri = c->prog->rec_info ?
		&c->prog->rec_info[a->rec0] : NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m, *out = c->out;
	int quiet = c->opts->quiet;

	if (r == NULL)
		return;
	if (ri == NULL || ri->tdesc == NULL) {
		js_trace(c, r, ri, data + r->offset);
		return;
	}
	if ((m = open_memstream(&buf, &len)) == NULL)
		return;
	c->out = m;
	c->opts->quiet = 1;
	text_print(c, a, data);
	c->opts->quiet = quiet;
	c->out = out;
	fclose(m);
	mt_json_open(&c->jw, NULL, 0);
	if (ri->ctype)
		mt_json_strz(&c->jw, "type", ri->ctype);
	mt_json_str(&c->jw, "print", buf ? buf : "", len);
	mt_json_close(&c->jw);
	free(buf);
}

static void
js_tracemem(struct mt_consumer *c, const uint8_t *p, size_t n)
{
	js_hex(c, "tracemem", p, n);
}

static void
js_exit(struct mt_consumer *c, int status)
{
	js_int(c, "exit", status);
}

/* One document on one output: freopen() is noted, not done. */
static void
js_freopen(struct mt_consumer *c, const char *path)
{
	js_text(c, "freopen", path ? path : "");
}

static void
js_ftruncate(struct mt_consumer *c)
{
	(void)c;
}

static void
js_liberr(struct mt_consumer *c, const char *msg)
{
	js_text(c, "error", msg);
}

const struct out_ops out_json = {
	.rec_begin = js_probe_begin, .rec_end = js_probe_end,
	.trace = js_trace, .message = js_printf, .printa = js_printa,
	.stack = js_stack, .tracemem = js_tracemem, .sym = js_sym,
	.print = js_print, .exit = js_exit, .system = js_system,
	.freopen = js_freopen, .ftruncate = js_ftruncate,
	.liberr = js_liberr, .error = js_error, .drop = js_drop,
	.finish = js_finish,
};
