/*
 * The CTF 1.8 writer: one stream file per CPU made of packets (LTTng's
 * names: channel0_0, channel0_1, ...), the TSDL
 * metadata written at close (tsdl.c), when every event class is known.
 *
 * Layout (little-endian, every field byte-aligned: align = 8 bits):
 *   packet header   uint32 magic 0xC1FC1FC1, uint32 stream_id (0)
 *   packet context  uint64 timestamp_begin, timestamp_end, content_size,
 *                   packet_size (bits), packet_seq_num, events_discarded
 *                   (cumulative, as LTTng), uint32 cpu_id
 *   event header    uint32 id, uint64 timestamp (ns, the trace clock)
 *   payload         the class's fields in order: integers of their size,
 *                   strings NUL-terminated, byte arrays of their size.
 * A packet is flushed once it holds MT_CTF_PACKET bytes of events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include "ctf_int.h"
#include "machtrace/vec.h"

static void
seterr(char *err, size_t len, const char *fmt, const char *a, int e)
{
	if (err && len)
		snprintf(err, len, fmt, a, strerror(e));
}

static int
dir_usable(const char *dir, char *err, size_t len)
{
	DIR *d;
	struct dirent *de;

	if (mkdir(dir, 0777) == 0)
		return 0;
	if (errno != EEXIST || (d = opendir(dir)) == NULL) {
		seterr(err, len, "cannot create %s: %s", dir, errno);
		return -1;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			closedir(d);
			if (err && len)
				snprintf(err, len, "%s exists and is not empty",
					 dir);
			return -1;
		}
	closedir(d);
	return 0;
}

struct mt_trace_writer *
mt_trace_create(const char *dir, uint32_t ncpus,
		const struct mt_trace_env *env, char *err, size_t errlen)
{
	struct mt_trace_writer *w;
	char path[4096];

	if (ncpus == 0 || ncpus > CTF_MAX_CPUS) {
		if (err && errlen)
			snprintf(err, errlen, "bad CPU count %u", ncpus);
		return NULL;
	}
	if (dir_usable(dir, err, errlen) != 0)
		return NULL;
	if ((w = calloc(1, sizeof(*w))) == NULL ||
	    (w->streams = calloc(ncpus, sizeof(*w->streams))) == NULL ||
	    (w->dir = strdup(dir)) == NULL) {
		if (w)
			free(w->streams);
		free(w);
		seterr(err, errlen, "%s%s", "", ENOMEM);
		return NULL;
	}
	w->ncpus = ncpus;
	if (env) {
		w->env = *env;
		w->env.hostname = env->hostname ? strdup(env->hostname) : NULL;
		w->env.trace_name = env->trace_name ? strdup(env->trace_name) : NULL;
		w->env.program = env->program ? strdup(env->program) : NULL;
		w->env.events = env->events ? strdup(env->events) : NULL;
		w->env.workload = env->workload ? strdup(env->workload) : NULL;
		w->env.kernel = env->kernel ? strdup(env->kernel) : NULL;
	}
	for (uint32_t i = 0; i < ncpus; i++) {
		snprintf(path, sizeof(path), "%s/" CTF_STREAM_PREFIX "%u", dir, i);
		if ((w->streams[i].f = fopen(path, "wb")) == NULL) {
			seterr(err, errlen, "cannot create %s: %s", path, errno);
			w->ncpus = i;
			mt_trace_abort(w);
			return NULL;
		}
	}
	return w;
}

struct mt_trace_writer *
mt_trace_create_session(const char *dir, uint32_t ncpus,
			const struct mt_trace_env *env, char *err, size_t errlen)
{
	char path[4096];

	if (dir_usable(dir, err, errlen) != 0)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, CTF_SESSION_DOMAIN);
	return mt_trace_create(path, ncpus, env, err, errlen);
}

int
mt_trace_add_class(struct mt_trace_writer *w, const char *name,
		   const struct mt_trace_field *fields, uint32_t nfields)
{
	struct mt_trace_class *v, *c;

	if (w->nclasses % 64 == 0) {
		v = realloc(w->classes, (w->nclasses + 64) * sizeof(*v));
		if (v == NULL)
			return -1;
		w->classes = v;
	}
	c = &w->classes[w->nclasses];
	memset(c, 0, sizeof(*c));
	c->id = w->nclasses;
	if ((c->name = strdup(name)) == NULL ||
	    (nfields && (c->fields = calloc(nfields, sizeof(*c->fields))) == NULL)) {
		free(c->name);
		return -1;
	}
	for (uint32_t i = 0; i < nfields; i++) {
		c->fields[i] = fields[i];
		c->fields[i].name = ctf_ident(fields[i].name, i);
		if (c->fields[i].type != MT_TF_STR && c->fields[i].type != MT_TF_BYTES &&
		    c->fields[i].size != 1 && c->fields[i].size != 2 &&
		    c->fields[i].size != 4)
			c->fields[i].size = 8;
		c->nfields++;
	}
	return (int)w->nclasses++;
}

static int
buf_put(struct ctf_stream *s, const void *p, size_t n)
{
	if (mt_vec_reserve(&s->buf, &s->cap, s->len + n, 1, 65536) != 0)
		return -1;
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

static int
flush_packet(struct mt_trace_writer *w, uint32_t cpu)
{
	struct ctf_stream *s = &w->streams[cpu];
	uint8_t h[CTF_PKT_HDR];
	uint64_t bits = (uint64_t)(CTF_PKT_HDR + s->len) * 8;
	uint64_t ctx[6] = { s->pkt_begin, s->last_ts, bits, bits, s->seq,
			    s->discarded };
	uint32_t magic = CTF_MAGIC, sid = 0;

	memcpy(h, &magic, 4);
	memcpy(h + 4, &sid, 4);
	memcpy(h + 8, ctx, sizeof(ctx));
	memcpy(h + 56, &cpu, 4);
	if (fwrite(h, 1, sizeof(h), s->f) != sizeof(h) ||
	    (s->len && fwrite(s->buf, 1, s->len, s->f) != s->len))
		return -1;
	s->seq++;
	s->flushed_disc = s->discarded;
	s->len = 0;
	s->npkt_events = 0;
	s->pkt_begin = s->last_ts;
	return 0;
}

int
mt_trace_event(struct mt_trace_writer *w, uint32_t cpu, uint64_t ts,
	       uint32_t class_id, const struct mt_trace_value *vals)
{
	struct ctf_stream *s;
	const struct mt_trace_class *c;
	int rc = 0;

	if (cpu >= w->ncpus || class_id >= w->nclasses)
		return -1;
	s = &w->streams[cpu];
	c = &w->classes[class_id];
	if (ts < s->last_ts)
		ts = s->last_ts;
	if (s->npkt_events == 0)
		s->pkt_begin = s->seq == 0 ? ts : s->pkt_begin;
	s->last_ts = ts;
	rc |= buf_put(s, &class_id, 4);
	rc |= buf_put(s, &ts, 8);
	for (uint32_t i = 0; i < c->nfields; i++) {
		const struct mt_trace_field *f = &c->fields[i];

		if (f->type == MT_TF_STR) {
			const char *str = vals[i].s ? vals[i].s : "";
			rc |= buf_put(s, str, strlen(str) + 1);
		} else if (f->type == MT_TF_BYTES) {
			static const uint8_t zero[64];
			for (uint32_t k = 0; !vals[i].bytes && k < f->size; k += 64)
				rc |= buf_put(s, zero, f->size - k < 64 ? f->size - k : 64);
			if (vals[i].bytes)
				rc |= buf_put(s, vals[i].bytes, f->size);
		} else {
			rc |= buf_put(s, &vals[i].i, f->size);	/* little-endian */
		}
	}
	if (rc)
		return -1;
	s->npkt_events++;
	w->nevents++;
	if (s->len >= MT_CTF_PACKET)
		return flush_packet(w, cpu);
	return 0;
}

void
mt_trace_set_probe_cost(struct mt_trace_writer *w, uint64_t firings, uint64_t ns)
{
	w->probe_firings = firings;
	w->probe_ns = ns;
	w->probe_cost = 1;
}

void
mt_trace_set_clock_offset(struct mt_trace_writer *w, int64_t ns)
{
	w->env.clock_offset_ns = ns;
}

void
mt_trace_discarded(struct mt_trace_writer *w, uint32_t cpu, uint64_t n)
{
	if (cpu < w->ncpus) {
		w->streams[cpu].discarded += n;
		w->ndiscarded += n;
	}
}

uint64_t mt_trace_nevents(const struct mt_trace_writer *w) { return w->nevents; }
uint64_t mt_trace_ndiscarded(const struct mt_trace_writer *w) { return w->ndiscarded; }

static void
free_writer(struct mt_trace_writer *w)
{
	for (uint32_t i = 0; i < w->ncpus; i++) {
		if (w->streams[i].f)
			fclose(w->streams[i].f);
		free(w->streams[i].buf);
	}
	for (uint32_t i = 0; i < w->nclasses; i++) {
		for (uint32_t k = 0; k < w->classes[i].nfields; k++)
			free(w->classes[i].fields[k].name);
		free(w->classes[i].fields);
		free(w->classes[i].name);
	}
	free(w->classes);
	free(w->streams);
	free((char *)w->env.hostname);
	free((char *)w->env.trace_name);
	free((char *)w->env.program);
	free((char *)w->env.events);
	free((char *)w->env.workload);
	free((char *)w->env.kernel);
	free(w->dir);
	free(w);
}

void
mt_trace_abort(struct mt_trace_writer *w)
{
	if (w)
		free_writer(w);
}

/*
 * Every stream ends with a packet, even an empty one: its context carries
 * the stream's final events_discarded, and a CPU that recorded nothing
 * still has a (valid) stream.
 */
int
mt_trace_close(struct mt_trace_writer *w, char *err, size_t errlen)
{
	char path[4096];
	int rc = 0;

	for (uint32_t i = 0; i < w->ncpus; i++) {
		struct ctf_stream *s = &w->streams[i];

		if ((s->len || s->seq == 0 || s->discarded != s->flushed_disc) &&
		    flush_packet(w, i) != 0)
			rc = -1;
		if (fclose(s->f) != 0)
			rc = -1;
		s->f = NULL;
	}
	if (rc) {
		seterr(err, errlen, "writing the streams of %s: %s", w->dir, errno);
		free_writer(w);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/metadata", w->dir);
	if (ctf_write_metadata(w, path) != 0) {
		seterr(err, errlen, "cannot write %s: %s", path, errno);
		rc = -1;
	}
	free_writer(w);
	return rc;
}
