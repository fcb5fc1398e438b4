/*
 * --format speedscope: speedscope's file format (its JSON schema,
 * https://www.speedscope.app/file-format-schema.json): the shared frames
 * and one "sampled" profile, a sample per distinct stack (frame indexes
 * root first) weighted by the number of events that recorded it.
 */
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

/* The distinct frames in order of first use (names owned by the map). */
struct frames {
	const char **name;
	size_t n, cap;
	struct imap map;		/* hash -> index a; a collision takes hash + 1 */
};

/* The index of frame name (len bytes) in fr, added when new. */
static long
frame_index(struct frames *fr, const char *name, size_t len)
{
	int64_t key = (int64_t)export_hash(name, len);
	struct imap_ent *e;

	for (;; key++) {
		if ((e = imap_get(&fr->map, key, 1)) == NULL)
			return -1;
		if (e->name == NULL)
			break;
		if (strlen(e->name) == len && strncmp(e->name, name, len) == 0)
			return (long)e->a;
	}
	if (fr->n == fr->cap) {
		size_t cap = fr->cap ? fr->cap * 2 : 64;
		const char **v = realloc(fr->name, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		fr->name = v;
		fr->cap = cap;
	}
	if ((e->name = strndup(name, len)) == NULL)
		return -1;
	e->a = (int64_t)fr->n;
	fr->name[fr->n] = e->name;
	return (long)fr->n++;
}

static int
write_samples(FILE *out, const struct folded_set *fs, struct frames *fr)
{
	fputs("\"samples\":[", out);
	for (size_t i = 0; i < fs->n; i++) {
		const char *p = fs->v[i].stack;

		fprintf(out, "%s[", i ? "," : "");
		for (int first = 1; *p; first = 0) {
			size_t n = strcspn(p, ";");
			long k = frame_index(fr, p, n);

			if (k < 0)
				return -1;
			fprintf(out, "%s%ld", first ? "" : ",", k);
			p += n + (p[n] == ';');
		}
		fputc(']', out);
	}
	fputs("],\"weights\":[", out);
	for (size_t i = 0; i < fs->n; i++)
		fprintf(out, "%s%llu", i ? "," : "",
			(unsigned long long)fs->v[i].count);
	fputs("]", out);
	return 0;
}

int
mt_export_speedscope(struct mt_trace *t, FILE *out,
		     const struct mt_export_opts *o, char *err, size_t errlen)
{
	const char *name = o && o->title ? o->title : "machtrace";
	struct folded_set fs;
	struct frames fr = { NULL, 0, 0, { NULL, 0, 0 } };
	int rc;

	if (stacks_collect(t, o, &fs, err, errlen) != 0)
		return -1;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":\"machtrace\",\"name\":", out);
	mt_json_escapez(out, name);
	fputs(",\"activeProfileIndex\":0,\"profiles\":[{\"type\":\"sampled\","
	      "\"name\":", out);
	mt_json_escapez(out, name);
	fprintf(out, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%llu,",
		(unsigned long long)fs.total);
	rc = write_samples(out, &fs, &fr);
	fputs("}],\"shared\":{\"frames\":[", out);
	for (size_t i = 0; i < fr.n; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		mt_json_escapez(out, fr.name[i]);
		fputc('}', out);
	}
	fputs("]}}\n", out);
	free(fr.name);
	imap_free(&fr.map);
	stacks_free(&fs);
	if (rc != 0)
		snprintf(err, errlen, "out of memory");
	return rc;
}
