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
write_samples(struct mt_json *j, const struct folded_set *fs,
	      struct frames *fr)
{
	mt_json_open(j, "samples", MT_JSON_ARRAY);
	for (size_t i = 0; i < fs->n; i++) {
		const char *p = fs->v[i].stack;

		mt_json_open(j, NULL, MT_JSON_ARRAY);
		while (*p) {
			size_t n = strcspn(p, ";");
			long k = frame_index(fr, p, n);

			if (k < 0)
				return -1;
			mt_json_int(j, NULL, k);
			p += n + (p[n] == ';');
		}
		mt_json_close(j);
	}
	mt_json_close(j);
	mt_json_open(j, "weights", MT_JSON_ARRAY);
	for (size_t i = 0; i < fs->n; i++)
		mt_json_uint(j, NULL, fs->v[i].count);
	mt_json_close(j);
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
	struct mt_json j;

	if (stacks_collect(t, o, &fs, err, errlen) != 0)
		return -1;
	mt_json_init(&j, out, MT_JSON_COMPACT);
	mt_json_open(&j, NULL, MT_JSON_OBJECT);
	mt_json_strz(&j, "$schema",
		     "https://www.speedscope.app/file-format-schema.json");
	mt_json_strz(&j, "exporter", "machtrace");
	mt_json_strz(&j, "name", name);
	mt_json_int(&j, "activeProfileIndex", 0);
	mt_json_open(&j, "profiles", MT_JSON_ARRAY);
	mt_json_open(&j, NULL, MT_JSON_OBJECT);
	mt_json_strz(&j, "type", "sampled");
	mt_json_strz(&j, "name", name);
	mt_json_strz(&j, "unit", "none");
	mt_json_int(&j, "startValue", 0);
	mt_json_uint(&j, "endValue", fs.total);
	rc = write_samples(&j, &fs, &fr);
	/* the profile and the list of them (and, on a failure, what
	   write_samples left open) */
	while (j.depth > 1)
		mt_json_close(&j);
	mt_json_open(&j, "shared", MT_JSON_OBJECT);
	mt_json_open(&j, "frames", MT_JSON_ARRAY);
	for (size_t i = 0; i < fr.n; i++) {
		mt_json_open(&j, NULL, MT_JSON_OBJECT);
		mt_json_strz(&j, "name", fr.name[i]);
		mt_json_close(&j);
	}
	mt_json_close(&j);
	mt_json_close(&j);
	mt_json_close(&j);
	fputc('\n', out);
	for (size_t i = 0; i < fr.n; i++)
		free(fr.name[i]);
	free(fr.name);
	mt_hmap_free(&fr.map);
	stacks_free(&fs);
	if (rc != 0)
		snprintf(err, errlen, "out of memory");
	return rc;
}
