/*
 * --format speedscope: speedscope's file format (its JSON schema,
 * https://www.speedscope.app/file-format-schema.json): the shared frames
 * and one "sampled" profile, a sample per distinct stack (frame indexes
 * root first) weighted by the number of events that recorded it.
 */
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

/* The distinct frames in order of first use (names owned). */
struct frames {
	char **name;
	size_t n, cap;
	struct mt_hmap map;		/* index + 1 into name by name */
	const char *key;		/* the name frame_eq compares */
	size_t keylen;
};

static int
frame_eq(const void *ctx, uintptr_t val)
{
	const struct frames *fr = ctx;
	const char *n = fr->name[val - 1];

	return strncmp(n, fr->key, fr->keylen) == 0 && n[fr->keylen] == 0;
}

/* The index of frame name (len bytes) in fr, added when new. */
static long
frame_index(struct frames *fr, const char *name, size_t len)
{
	uint64_t h = mt_hash_bytes(name, len, MT_HASH_INIT);
	uintptr_t v;

	fr->key = name;
	fr->keylen = len;
	if ((v = mt_hmap_find(&fr->map, h, frame_eq, fr)) != 0)
		return (long)v - 1;
	if (MT_VEC_ROOM(fr->name, fr->n, fr->cap, 64) != 0)
		return -1;
	if ((fr->name[fr->n] = strndup(name, len)) == NULL)
		return -1;
	if (mt_hmap_put(&fr->map, h, fr->n + 1) != 0) {
		free(fr->name[fr->n]);
		return -1;
	}
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
	struct frames fr = { 0 };
	int rc;

	if (stacks_collect(t, o, &fs, err, errlen) != 0)
		return -1;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":\"machtrace\",\"name\":", out);
	json_str(out, name);
	fputs(",\"activeProfileIndex\":0,\"profiles\":[{\"type\":\"sampled\","
	      "\"name\":", out);
	json_str(out, name);
	fprintf(out, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%llu,",
		(unsigned long long)fs.total);
	rc = write_samples(out, &fs, &fr);
	fputs("}],\"shared\":{\"frames\":[", out);
	for (size_t i = 0; i < fr.n; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json_str(out, fr.name[i]);
		fputc('}', out);
	}
	fputs("]}}\n", out);
	for (size_t i = 0; i < fr.n; i++)
		free(fr.name[i]);
	free(fr.name);
	mt_hmap_free(&fr.map);
	stacks_free(&fs);
	if (rc != 0)
		snprintf(err, errlen, "out of memory");
	return rc;
}
