/*
 * A map from 64-bit keys (tids, pids, message addresses) to a few values,
 * for the exporters, over common/hmap.c.
 */
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

static int
key_eq(const void *ctx, uintptr_t val)
{
	return ((const struct imap_ent *)val)->key == *(const int64_t *)ctx;
}

struct imap_ent *
imap_get(struct imap *m, int64_t key, int add)
{
	uint64_t h = mt_hash_u64((uint64_t)key);
	struct imap_ent *e;

	e = (struct imap_ent *)mt_hmap_find(&m->map, h, key_eq, &key);
	if (e || !add)
		return e;
	if (mt_hmap_reserve(&m->map, 256) != 0 ||
	    (e = calloc(1, sizeof(*e))) == NULL)
		return NULL;
	e->key = key;
	if (mt_hmap_put(&m->map, h, (uintptr_t)e) != 0) {
		free(e);
		return NULL;
	}
	return e;
}

void
imap_del(struct imap *m, int64_t key)
{
	struct imap_ent *e = imap_get(m, key, 0);

	if (e == NULL)
		return;
	mt_hmap_del(&m->map, mt_hash_u64((uint64_t)key), (uintptr_t)e);
	free(e->name);
	free(e);
}

struct imap_ent *
imap_slot(const struct imap *m, size_t i)
{
	return (struct imap_ent *)m->map.slot[i].val;
}

void
imap_free(struct imap *m)
{
	for (size_t i = 0; i < m->map.nslot; i++) {
		struct imap_ent *e = imap_slot(m, i);

		if (e) {
			free(e->name);
			free(e);
		}
	}
	mt_hmap_free(&m->map);
}
