/* The hash map of include/machtrace/hmap.h. */
#include <stdlib.h>
#include "machtrace/hmap.h"

#define FIRST_SLOTS 64

uint64_t
mt_hash_bytes(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

uint64_t
mt_hash_str(const char *s)
{
	uint64_t h = MT_HASH_INIT;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

uint64_t
mt_hash_u64(uint64_t v)
{
	return (v * 0x9E3779B97F4A7C15ull) >> 32;
}

/* The empty slot where hash's probe sequence stops. */
static size_t
free_slot(const struct mt_hmap *m, uint64_t hash)
{
	size_t mask = m->nslot - 1, i = (size_t)hash & mask;

	while (m->slot[i].val)
		i = (i + 1) & mask;
	return i;
}

/* Re-place every value into nslot slots, in the old slots' order. */
static int
resize(struct mt_hmap *m, size_t nslot)
{
	struct mt_hmap old = *m;

	m->slot = calloc(nslot, sizeof(*m->slot));
	if (m->slot == NULL) {
		*m = old;
		return -1;
	}
	m->nslot = nslot;
	for (size_t i = 0; i < old.nslot; i++)
		if (old.slot[i].val)
			m->slot[free_slot(m, old.slot[i].hash)] = old.slot[i];
	free(old.slot);
	return 0;
}

int
mt_hmap_reserve(struct mt_hmap *m, size_t nslot)
{
	return m->nslot ? 0 : resize(m, nslot);
}

uintptr_t
mt_hmap_find(const struct mt_hmap *m, uint64_t hash, mt_hmap_eq eq,
	     const void *ctx)
{
	size_t mask = m->nslot - 1;

	if (m->nslot == 0)
		return 0;
	for (size_t i = (size_t)hash & mask; m->slot[i].val; i = (i + 1) & mask)
		if (m->slot[i].hash == hash &&
		    (eq == NULL || eq(ctx, m->slot[i].val)))
			return m->slot[i].val;
	return 0;
}

int
mt_hmap_put(struct mt_hmap *m, uint64_t hash, uintptr_t val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->nslot &&
	    resize(m, m->nslot ? m->nslot * 2 : FIRST_SLOTS) != 0)
		return -1;
	i = free_slot(m, hash);
	m->slot[i].hash = hash;
	m->slot[i].val = val;
	m->n++;
	return 0;
}

int
mt_hmap_del(struct mt_hmap *m, uint64_t hash, uintptr_t val)
{
	size_t mask = m->nslot - 1, i;

	if (m->nslot == 0)
		return -1;
	for (i = (size_t)hash & mask; m->slot[i].val; i = (i + 1) & mask)
		if (m->slot[i].val == val)
			break;
	if (m->slot[i].val == 0)
		return -1;
	m->slot[i].val = 0;
	m->n--;
	/* the rest of the cluster may have probed past i: place it again */
	for (i = (i + 1) & mask; m->slot[i].val; i = (i + 1) & mask) {
		struct mt_hslot s = m->slot[i];

		m->slot[i].val = 0;
		m->slot[free_slot(m, s.hash)] = s;
	}
	return 0;
}

void
mt_hmap_free(struct mt_hmap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->nslot = m->n = 0;
}
