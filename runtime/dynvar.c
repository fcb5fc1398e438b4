/*
 * Dynamic variables (probe context): by-reference thread-locals (self->s
 * of a string, struct or array type), thread-local and global associative
 * arrays, in dynvarsize's share for them (scalar thread-locals have rows
 * of their own, tls.c).  Fixed-size chunks
 * (header, key up to dyn_keycap bytes, value) from a free list, found
 * through a fixed hash table.  Allocation failure is a dynamic variable
 * drop (counted per CPU), never a fault.  Storing 0 frees the chunk.
 *
 * Key bytes: u32 scope, u32 variable id, then for thread scope the u64
 * thread id, then for associative arrays each tuple entry (8 bytes per
 * integer, a string up to the word holding its NUL, zero-padded, the size
 * of memory entries rounded up to 8).  A string key so costs its length,
 * not strsize, to build, hash and compare; the keys of two different
 * tuples still differ (where the shorter string has its NUL the other has
 * a character), and a tuple's types are the variable's.
 *
 * Single writer assumed per state area (GNU Mach is uniprocessor; the
 * local target is single-threaded).
 */
#include "rt.h"

void rt_dyn_init(struct rt *rt)
{
	for (uint32_t b = 0; b < rt->dyn_nbuckets; b++)
		rt->dynhash[b] = 0;
	rt->dyn_free = 0;
	for (uint32_t i = rt->dyn_nchunks; i > 0; i--) {
		struct rt_dvar *dv = (struct rt_dvar *)
			(rt->dyn + (uint64_t)(i - 1) * rt->dyn_chunksize);
		dv->next = rt->dyn_free;
		rt->dyn_free = i;
	}
}

static struct rt_dvar *chunk(struct rt *rt, uint32_t idx1)
{
	return (struct rt_dvar *)(rt->dyn + (uint64_t)(idx1 - 1) *
				  rt->dyn_chunksize);
}

uint8_t *rt_key(struct rt_mstate *ms, const struct rt_varslot *sl,
		uint32_t scope, uint32_t id, int tls, uint32_t *keylen,
		uint64_t small[2])
{
	struct rt *rt = ms->rt;
	uint8_t *key = sl->kind == MT_VK_ASSOC ?
		(uint8_t *)(uintptr_t)rt_alloc_raw(ms, rt->dyn_keycap) : (uint8_t *)small;
	uint32_t n = 8;

	if (!key)
		return 0;
	((uint32_t *)key)[0] = scope;
	((uint32_t *)key)[1] = id;
	if (tls) {
		*(uint64_t *)(key + 8) = rt_tid(ms);
		n = 16;
	}
	if (sl->kind == MT_VK_ASSOC) {
		for (uint32_t i = 0; i < ms->ttop; i++) {
			const struct rt_tuple *t = &ms->tuple[i];
			uint64_t sz = RT_ALIGN(t->size, 8);

			if (sz > rt->dyn_keycap - n) {
				rt_fault(ms, MT_FLT_TUPOFLOW, 0);
				return 0;
			}
			if (t->type == MT_TT_INT) {
				*(uint64_t *)(key + n) = t->val;
			} else if (t->type == MT_TT_STR) {
				int64_t w = rt_copy_strw(ms, (char *)key + n, t->val, sz);
				if (w < 0)
					return 0;
				sz = (uint64_t)w;
			} else if (rt_copy_in(ms, key + n, t->val, t->size)) {
				return 0;
			} else {
				rt_memset(key + n + t->size, 0, sz - t->size);
			}
			n += (uint32_t)sz;
		}
	}
	*keylen = n;
	return key;
}

static uint32_t *find(struct rt *rt, const uint8_t *key, uint32_t keylen,
		      uint32_t hash)
{
	uint32_t *link = &rt->dynhash[hash & (rt->dyn_nbuckets - 1)];

	while (*link) {
		struct rt_dvar *dv = chunk(rt, *link);
		if (dv->hash == hash && dv->keylen == keylen &&
		    rt_memcmp(dv + 1, key, keylen) == 0)
			return link;
		link = &dv->next;
	}
	return link;
}

uint8_t *rt_dvar_get(struct rt_mstate *ms, const uint8_t *key,
		     uint32_t keylen, int alloc)
{
	struct rt *rt = ms->rt;
	uint32_t hash, *link, idx;
	struct rt_dvar *dv;

	if (rt->dyn_nbuckets == 0) {
		if (alloc)
			ms->stat->dynvar_drops++;
		return 0;
	}
	hash = rt_hash(key, keylen, 0);
	link = find(rt, key, keylen, hash);
	if (*link)
		return (uint8_t *)(chunk(rt, *link) + 1) + rt->dyn_keycap;
	if (!alloc)
		return 0;
	idx = rt->dyn_free;
	if (idx == 0) {
		ms->stat->dynvar_drops++;
		return 0;
	}
	dv = chunk(rt, idx);
	rt->dyn_free = dv->next;
	dv->hash = hash;
	dv->keylen = keylen;
	rt_memcpy(dv + 1, key, keylen);
	rt_memset((uint8_t *)(dv + 1) + rt->dyn_keycap, 0,
		  rt->dyn_chunksize - sizeof(*dv) - rt->dyn_keycap);
	dv->next = 0;
	*link = idx;
	return (uint8_t *)(dv + 1) + rt->dyn_keycap;
}

void rt_dvar_del(struct rt_mstate *ms, const uint8_t *key, uint32_t keylen)
{
	struct rt *rt = ms->rt;
	uint32_t *link, idx;
	struct rt_dvar *dv;

	if (rt->dyn_nbuckets == 0)
		return;
	link = find(rt, key, keylen, rt_hash(key, keylen, 0));
	idx = *link;
	if (!idx)
		return;
	dv = chunk(rt, idx);
	*link = dv->next;
	dv->next = rt->dyn_free;
	rt->dyn_free = idx;
}
