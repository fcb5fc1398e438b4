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
	struct frames fr = { NULL, 0, 0, { NULL, 0, 0 } };
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
	free(fr.name);
	imap_free(&fr.map);
	stacks_free(&fs);
	if (rc != 0)
		snprintf(err, errlen, "out of memory");
	return rc;
}
