/*
 * Numbers for kernel objects (see idtab.h).  Linear probing keyed by the
 * address; entries are never removed, an address's slot is reused by the
 * next object at that address.  The table is kept at most 7/8 full so
 * that a probe sequence always ends at a free slot.
 */
#include "runtime/idtab.h"

void mt_idtab_init(struct mt_idtab *t, struct mt_ident *storage,
		   uint32_t cap, int64_t first)
{
	t->e = storage;
	t->cap = cap;
	t->n = 0;
	t->next = first;
	for (uint32_t i = 0; i < cap; i++) {
		storage[i].addr = 0;
		storage[i].stamp = 0;
		storage[i].id = 0;
		storage[i].aux = 0;
		for (int k = 0; k < MT_IDENT_NDATA; k++)
			storage[i].data[k] = 0;
	}
}

static uint32_t slot_of(const struct mt_idtab *t, uint64_t addr)
{
	uint64_t h = (addr >> 4) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32) & (t->cap - 1);
}

struct mt_ident *mt_idtab_enter(struct mt_idtab *t, uint64_t addr,
				uint64_t stamp, int64_t id, int *isnew)
{
	uint32_t i;

	if (isnew)
		*isnew = 0;
	if (!addr || !t->cap)
		return 0;
	for (i = slot_of(t, addr); t->e[i].addr; i = (i + 1) & (t->cap - 1)) {
		if (t->e[i].addr != addr)
			continue;
		if (t->e[i].stamp == stamp)
			return &t->e[i];
		break;			/* freed and reused: a new object */
	}
	if (!t->e[i].addr) {
		if ((t->n + 1) * 8ull > t->cap * 7ull)
			return 0;
		t->n++;
	}
	t->e[i].addr = addr;
	t->e[i].stamp = stamp;
	t->e[i].id = id >= 0 ? id : t->next++;
	t->e[i].aux = 0;
	for (int k = 0; k < MT_IDENT_NDATA; k++)
		t->e[i].data[k] = 0;
	if (isnew)
		*isnew = 1;
	return &t->e[i];
}

struct mt_ident *mt_idtab_find(struct mt_idtab *t, uint64_t addr)
{
	if (!addr || !t->cap)
		return 0;
	for (uint32_t i = slot_of(t, addr); t->e[i].addr; i = (i + 1) & (t->cap - 1))
		if (t->e[i].addr == addr)
			return &t->e[i];
	return 0;
}

/* Backward-shift deletion: later entries of the probe run move up. */
void mt_idtab_forget(struct mt_idtab *t, uint64_t addr)
{
	uint32_t i, j, mask = t->cap - 1;

	if (!addr || !t->cap)
		return;
	for (i = slot_of(t, addr); t->e[i].addr != addr; i = (i + 1) & mask)
		if (!t->e[i].addr)
			return;
	for (j = (i + 1) & mask; t->e[j].addr; j = (j + 1) & mask) {
		uint32_t home = slot_of(t, t->e[j].addr);
		/* e[j] may fill the hole at i unless its home lies in (i, j] */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		t->e[i] = t->e[j];
		i = j;
	}
	t->e[i].addr = 0;
	t->n--;
}

int64_t mt_idtab_id(struct mt_idtab *t, uint64_t addr, uint64_t stamp)
{
	struct mt_ident *e;

	if (!addr)
		return -1;
	e = mt_idtab_enter(t, addr, stamp, -1, 0);
	return e ? e->id : (int64_t)addr;
}
