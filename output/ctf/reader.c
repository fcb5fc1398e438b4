/*
 * The trace reader: the streams of a trace directory, each read whole,
 * decoded packet by packet and merged in timestamp order.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "reader_int.h"

static uint64_t
rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int
load_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n;

	*data = NULL;
	*size = 0;
	if (f == NULL)
		return -1;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 ||
	    (*data = malloc(n ? (size_t)n : 1)) == NULL ||
	    fread(*data, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(*data);
		*data = NULL;
		return -1;
	}
	*size = (size_t)n;
	fclose(f);
	return 0;
}

/*
 * Enter the packet at s->pkt (skipping empty ones); 0 at the stream's end.
 * A packet's cpu_id is below the number of streams (the writer writes one
 * per CPU): readers size per-CPU arrays by mt_trace_ncpus.
 */
static int
enter_packet(struct ctf_rstream *s, uint32_t nstreams, char *err, size_t errlen)
{
	while (s->pkt < s->size) {
		const uint8_t *h = s->data + s->pkt;
		uint64_t content, psize;

		if (s->size - s->pkt < CTF_PKT_HDR || rd32(h) != CTF_MAGIC) {
			snprintf(err, errlen, "%s: bad packet header at offset %zu",
				 s->path, s->pkt);
			return -1;
		}
		content = rd64(h + 24) / 8;
		psize = rd64(h + 32) / 8;
		if (content < CTF_PKT_HDR || psize < content ||
		    psize > s->size - s->pkt) {
			snprintf(err, errlen, "%s: bad packet size at offset %zu",
				 s->path, s->pkt);
			return -1;
		}
		s->discarded = rd64(h + 48);
		s->cpu = rd32(h + 56);
		if (s->cpu >= CTF_MAX_CPUS || s->cpu >= nstreams) {
			snprintf(err, errlen, "%s: packet at offset %zu: cpu_id %u "
				 "(the trace has %u stream%s, one per CPU)", s->path,
				 s->pkt, s->cpu, nstreams, nstreams == 1 ? "" : "s");
			return -1;
		}
		s->pos = s->pkt + CTF_PKT_HDR;
		s->pkt_end = s->pkt + content;
		if (s->pos < s->pkt_end) {
			s->pkt += psize;
			return 1;
		}
		s->pkt += psize;
	}
	return 0;
}

/* Decode the stream's next event into s->ts/id/vals; s->have = 0 at end. */
static int
decode_next(struct mt_trace *t, struct ctf_rstream *s, char *err, size_t errlen)
{
	const struct mt_trace_class *c;
	int rc;

	s->have = 0;
	if (s->pos >= s->pkt_end && (rc = enter_packet(s, t->nstreams, err, errlen)) <= 0)
		return rc;
	if (s->pkt_end - s->pos < CTF_EV_HDR)
		goto bad;
	s->id = rd32(s->data + s->pos);
	s->ts = rd64(s->data + s->pos + 4);
	s->pos += CTF_EV_HDR;
	if (s->id >= t->nclasses)
		goto bad;
	c = &t->classes[s->id];
	if (c->nfields > s->nvals_cap) {
		struct mt_trace_value *v = realloc(s->vals, c->nfields * sizeof(*v));
		if (v == NULL)
			return -1;
		s->vals = v;
		s->nvals_cap = c->nfields;
	}
	for (uint32_t i = 0; i < c->nfields; i++) {
		const struct mt_trace_field *f = &c->fields[i];
		const uint8_t *p = s->data + s->pos;
		size_t left = s->pkt_end - s->pos, n;

		memset(&s->vals[i], 0, sizeof(s->vals[i]));
		if (f->type == MT_TF_STR) {
			const uint8_t *z = memchr(p, 0, left);
			if (z == NULL)
				goto bad;
			s->vals[i].s = (const char *)p;
			n = (size_t)(z - p) + 1;
		} else if (f->type == MT_TF_BYTES) {
			s->vals[i].bytes = p;
			n = f->size;
		} else {
			uint64_t u = 0;

			n = f->size;
			if (n > left)
				goto bad;
			memcpy(&u, p, n);
			if (f->type == MT_TF_INT && n < 8 && (u >> (n * 8 - 1)) & 1)
				u |= ~0ULL << (n * 8);
			s->vals[i].i = (int64_t)u;
		}
		if (n > left)
			goto bad;
		s->pos += n;
	}
	s->have = 1;
	return 1;
bad:
	snprintf(err, errlen, "%s: malformed event at offset %zu", s->path, s->pos);
	return -1;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct ctf_rstream *)a)->path,
		      ((const struct ctf_rstream *)b)->path);
}

static int
open_streams(struct mt_trace *t, const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	if (d == NULL) {
		snprintf(err, errlen, "cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		struct ctf_rstream *v;

		if (strncmp(de->d_name, CTF_STREAM_PREFIX, strlen(CTF_STREAM_PREFIX)) &&
		    strncmp(de->d_name, CTF_OLD_STREAM_PREFIX,
			    strlen(CTF_OLD_STREAM_PREFIX)))
			continue;
		if ((v = realloc(t->streams, (t->nstreams + 1) * sizeof(*v))) == NULL)
			break;
		t->streams = v;
		v += t->nstreams;
		memset(v, 0, sizeof(*v));
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		v->path = strdup(path);
		t->nstreams++;
		if (load_file(path, &v->data, &v->size) != 0) {
			snprintf(err, errlen, "cannot read %s: %s", path,
				 strerror(errno));
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	/* no stream file: no events (streams is NULL, which qsort may not see) */
	if (t->nstreams > 1)
		qsort(t->streams, t->nstreams, sizeof(*t->streams), cmp_name);
	return 0;
}

int
mt_trace_rewind(struct mt_trace *t, char *err, size_t errlen)
{
	for (uint32_t i = 0; i < t->nstreams; i++) {
		struct ctf_rstream *s = &t->streams[i];

		s->pkt = s->pos = s->pkt_end = 0;
		if (decode_next(t, s, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/*
 * dir's metadata, or that of the kernel trace of the session dir is (record
 * -o DIR writes DIR/kernel); *tdir is set to the trace's directory.
 */
static FILE *
open_metadata(const char *dir, char *tdir, size_t len, char *path, size_t plen)
{
	FILE *f;

	snprintf(tdir, len, "%s", dir);
	snprintf(path, plen, "%s/metadata", tdir);
	if ((f = fopen(path, "r")) != NULL || errno != ENOENT)
		return f;
	snprintf(tdir, len, "%s/%s", dir, CTF_SESSION_DOMAIN);
	snprintf(path, plen, "%s/metadata", tdir);
	if ((f = fopen(path, "r")) == NULL && errno == ENOENT)
		snprintf(path, plen, "%s/metadata", dir);
	return f;
}

struct mt_trace *
mt_trace_open(const char *dir, char *err, size_t errlen)
{
	struct mt_trace *t = calloc(1, sizeof(*t));
	char path[4096], tdir[4000];
	FILE *f;

	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if ((f = open_metadata(dir, tdir, sizeof(tdir), path, sizeof(path))) == NULL) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		free(t);
		return NULL;
	}
	if (ctf_read_metadata(t, f, err, errlen) != 0 ||
	    open_streams(t, tdir, err, errlen) != 0 ||
	    mt_trace_rewind(t, err, errlen) != 0) {
		fclose(f);
		mt_trace_free(t);
		return NULL;
	}
	fclose(f);
	return t;
}

void
mt_trace_free(struct mt_trace *t)
{
	if (t == NULL)
		return;
	for (uint32_t i = 0; i < t->nenv; i++) {
		free(t->env[i].key);
		free(t->env[i].val);
	}
	for (uint32_t i = 0; i < t->nclasses; i++) {
		for (uint32_t k = 0; k < t->classes[i].nfields; k++)
			free(t->classes[i].fields[k].name);
		free(t->classes[i].fields);
		free(t->classes[i].name);
	}
	for (uint32_t i = 0; i < t->nstreams; i++) {
		free(t->streams[i].path);
		free(t->streams[i].data);
		free(t->streams[i].vals);
	}
	free(t->cur);
	free(t->env);
	free(t->classes);
	free(t->streams);
	free(t);
}

int
mt_trace_next(struct mt_trace *t, struct mt_trace_event *ev, char *err,
	      size_t errlen)
{
	struct ctf_rstream *best = NULL;
	const struct mt_trace_class *c;

	for (uint32_t i = 0; i < t->nstreams; i++) {
		struct ctf_rstream *s = &t->streams[i];

		if (s->have && (best == NULL || s->ts < best->ts ||
				(s->ts == best->ts && s->cpu < best->cpu)))
			best = s;
	}
	if (best == NULL)
		return 0;
	c = &t->classes[best->id];
	if (c->nfields > t->ncur) {
		struct mt_trace_value *v = realloc(t->cur, c->nfields * sizeof(*v));
		if (v == NULL)
			return -1;
		t->cur = v;
		t->ncur = c->nfields;
	}
	if (c->nfields)
		memcpy(t->cur, best->vals, c->nfields * sizeof(*t->cur));
	ev->ts = best->ts;
	ev->cpu = best->cpu;
	ev->cls = c;
	ev->vals = t->cur;
	/* the values point into best->data, which stays loaded */
	if (decode_next(t, best, err, errlen) < 0)
		return -1;
	return 1;
}

uint32_t mt_trace_nclasses(const struct mt_trace *t) { return t->nclasses; }
int64_t mt_trace_clock_offset(const struct mt_trace *t) { return t->clock_offset; }
uint32_t mt_trace_ncpus(const struct mt_trace *t) { return t->nstreams; }

const struct mt_trace_class *
mt_trace_class(const struct mt_trace *t, uint32_t id)
{
	return id < t->nclasses ? &t->classes[id] : NULL;
}

const struct mt_trace_class *
mt_trace_class_named(const struct mt_trace *t, const char *name)
{
	for (uint32_t i = 0; i < t->nclasses; i++)
		if (strcmp(t->classes[i].name, name) == 0)
			return &t->classes[i];
	return NULL;
}

const char *
mt_trace_env_get(const struct mt_trace *t, const char *key)
{
	for (uint32_t i = 0; i < t->nenv; i++)
		if (strcmp(t->env[i].key, key) == 0)
			return t->env[i].val;
	return NULL;
}

/* The last packet of each stream: its events_discarded is the total. */
uint64_t
mt_trace_discarded_total(const struct mt_trace *t)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < t->nstreams; i++) {
		const struct ctf_rstream *s = &t->streams[i];
		size_t off = 0, last = SIZE_MAX;

		while (off + CTF_PKT_HDR <= s->size && rd32(s->data + off) == CTF_MAGIC) {
			uint64_t psize = rd64(s->data + off + 32) / 8;
			last = off;
			if (psize < CTF_PKT_HDR)
				break;
			off += psize;
		}
		if (last != SIZE_MAX)
			n += rd64(s->data + last + 48);
	}
	return n;
}

uint64_t
mt_trace_stream_bytes(const struct mt_trace *t)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < t->nstreams; i++)
		n += t->streams[i].size;
	return n;
}

int
mt_trace_field_index(const struct mt_trace_class *cls, const char *name)
{
	for (uint32_t i = 0; i < cls->nfields; i++)
		if (strcmp(cls->fields[i].name, name) == 0)
			return (int)i;
	return -1;
}

int
mt_trace_get_int(const struct mt_trace_event *ev, const char *name, int64_t *v)
{
	int i = mt_trace_field_index(ev->cls, name);

	if (i < 0 || ev->cls->fields[i].type == MT_TF_STR ||
	    ev->cls->fields[i].type == MT_TF_BYTES)
		return -1;
	*v = ev->vals[i].i;
	return 0;
}

const char *
mt_trace_get_str(const struct mt_trace_event *ev, const char *name)
{
	int i = mt_trace_field_index(ev->cls, name);

	return i >= 0 && ev->cls->fields[i].type == MT_TF_STR ? ev->vals[i].s : NULL;
}

uint64_t
mt_trace_bytes_read(const struct mt_trace *t)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < t->nstreams; i++)
		n += t->streams[i].have ? t->streams[i].pos : t->streams[i].size;
	return n;
}
