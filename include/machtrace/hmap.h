/*
 * The one hash map of the host code (common/hmap.c).  It holds only
 * (hash, value) slots: a value is the caller's pointer or index + 1 into
 * the caller's own storage, never 0, and the caller compares keys (an eq
 * callback given the value).  Open addressing, linear probing, a power of
 * two of slots at most half full; a delete re-places the rest of its
 * cluster (no tombstones).  The slot order is a function of the hashes and
 * of the order of puts and deletes only, so iterating m->slot[0..nslot)
 * (values != 0) is repeatable.
 */
#ifndef MACHTRACE_HMAP_H
#define MACHTRACE_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct mt_hslot {
	uint64_t hash;
	uintptr_t val;			/* 0: empty */
};

struct mt_hmap {
	struct mt_hslot *slot;
	size_t nslot, n;		/* nslot: 0 or a power of two */
};

/* Whether val's key is the one looked for (ctx: the caller's key). */
typedef int (*mt_hmap_eq)(const void *ctx, uintptr_t val);

/* The value whose hash is hash and for which eq(ctx, value) holds; 0 when
   none.  eq NULL: the first value of that hash. */
uintptr_t mt_hmap_find(const struct mt_hmap *m, uint64_t hash, mt_hmap_eq eq,
		       const void *ctx);
/* Add val (!= 0) under hash, keys not checked for repeats; -1 when memory
   runs out (the map unchanged). */
int mt_hmap_put(struct mt_hmap *m, uint64_t hash, uintptr_t val);
/* Remove the slot holding val under hash; -1 when there is none. */
int mt_hmap_del(struct mt_hmap *m, uint64_t hash, uintptr_t val);
/* Make the table nslot (a power of two) slots when it has none yet. */
int mt_hmap_reserve(struct mt_hmap *m, size_t nslot);
/* Free the slots (not what the values point to); m becomes empty. */
void mt_hmap_free(struct mt_hmap *m);

/* FNV-1a over n bytes, continuing from h (MT_HASH_INIT to start). */
#define MT_HASH_INIT 14695981039346656037ull
uint64_t mt_hash_bytes(const void *p, size_t n, uint64_t h);
uint64_t mt_hash_str(const char *s);
/* A 64-bit integer key's hash (Fibonacci hashing, the high half). */
uint64_t mt_hash_u64(uint64_t v);

#endif
