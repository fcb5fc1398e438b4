/*
 * A small open-addressing map from 64-bit keys (tids, pids, message
 * addresses) to a few values, for the exporters.
 */
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

static size_t
slot_of(int64_t key, size_t cap)
{
	uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ULL;

	return (size_t)(h >> 32) & (cap - 1);
}

static int
grow(struct imap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	struct imap_ent *e = calloc(cap, sizeof(*e));

	if (e == NULL)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		size_t h;

		if (!m->e[i].used)
			continue;
		h = slot_of(m->e[i].key, cap);
		while (e[h].used)
			h = (h + 1) & (cap - 1);
		e[h] = m->e[i];
	}
	free(m->e);
	m->e = e;
	m->cap = cap;
	return 0;
}

struct imap_ent *
imap_get(struct imap *m, int64_t key, int add)
{
	size_t h;

	if (m->cap) {
		for (h = slot_of(key, m->cap); m->e[h].used; h = (h + 1) & (m->cap - 1))
			if (m->e[h].key == key)
				return &m->e[h];
	}
	if (!add || ((m->n + 1) * 2 > m->cap && grow(m) != 0))
		return NULL;
	for (h = slot_of(key, m->cap); m->e[h].used; h = (h + 1) & (m->cap - 1))
		;
	memset(&m->e[h], 0, sizeof(m->e[h]));
	m->e[h].used = 1;
	m->e[h].key = key;
	m->n++;
	return &m->e[h];
}

/* Delete by re-inserting the rest of the cluster (no tombstones). */
void
imap_del(struct imap *m, int64_t key)
{
	struct imap_ent *e = imap_get(m, key, 0);
	size_t h;

	if (e == NULL)
		return;
	free(e->name);
	e->used = 0;
	m->n--;
	for (h = ((size_t)(e - m->e) + 1) & (m->cap - 1); m->e[h].used;
	     h = (h + 1) & (m->cap - 1)) {
		struct imap_ent x = m->e[h];
		struct imap_ent *n;

		m->e[h].used = 0;
		m->n--;
		n = imap_get(m, x.key, 1);
		*n = x;
	}
}

void
imap_free(struct imap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->e[i].used)
			free(m->e[i].name);
	free(m->e);
	memset(m, 0, sizeof(*m));
}
