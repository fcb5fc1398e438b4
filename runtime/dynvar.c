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
 * Several CPUs (DTrace's dtrace_dynvar design, no lock): a chain is
 * changed only by compare-and-swap.  A new chunk goes in at the head, and
 * only if the head is still the one the search for its key started from
 * (else the search runs again), so a key is never in a chain twice.  A
 * delete marks the chunk's next (RT_DV_MARK: it no longer matches and its
 * next never changes again), then swings the link that holds it past it.
 * A CPU still walking through it so reaches the rest of the chain.
 *
 * Chunks are per CPU: each takes from its own free list (another CPU short
 * of chunks may take that whole list, as dtrace_dynvar steals), and a
 * chunk a CPU deletes goes on its dirty list, not back to free: another
 * CPU may be reading it.  When its free list is empty a CPU moves dirty to
 * rinsing and notes every CPU's epoch (rt_epoch_enter); rinsing becomes
 * free once each other CPU was out of a firing then or has left that
 * firing since (its epoch was even, or has moved), as dtrace_dynvar_clean
 * does with dtrace_sync.  One CPU has nothing to wait for and nobody to
 * race: it takes, unlinks and frees chunks with plain stores.  A drop is counted once per store that found no chunk.
 */
#include "rt.h"

static struct rt_dvar *chunk(struct rt *rt, uint32_t idx1)
{
	return (struct rt_dvar *)(rt->dyn + (uint64_t)(idx1 - 1) *
				  rt->dyn_chunksize);
}

static uint32_t ld(uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static int cas(uint32_t *p, uint32_t old, uint32_t new)
{
	return __atomic_compare_exchange_n(p, &old, new, 0, __ATOMIC_SEQ_CST,
					   __ATOMIC_ACQUIRE);
}

/* Each CPU's free list gets an equal run of the chunks, in order. */
void rt_dyn_init(struct rt *rt)
{
	for (uint32_t b = 0; b < rt->dyn_nbuckets; b++)
		rt->dynhash[b] = 0;
	for (uint32_t i = rt->dyn_nchunks; i > 0; i--) {
		struct rt_cpu *c = &rt->cpu[(uint64_t)(i - 1) * rt->ncpus /
					    rt->dyn_nchunks];
		chunk(rt, i)->link = c->dyn_free;
		c->dyn_free = i;
	}
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

/*
 * The live chunk of key from head on, or 0.  A deleted chunk's next is
 * frozen, and the chunk is not reused while this firing runs, so a walk
 * standing on one when it is taken out goes on to the rest of the chain.
 */
static inline __attribute__((always_inline)) uint32_t
lookup(struct rt *rt, uint32_t i, const uint8_t *key, uint32_t keylen,
       uint32_t hash)
{
	while (i) {
		struct rt_dvar *dv = chunk(rt, i);
		uint32_t next = ld(&dv->next);

		if (!(next & RT_DV_MARK) && dv->hash == hash &&
		    dv->keylen == keylen && rt_memcmp(dv + 1, key, keylen) == 0)
			return i;
		i = next & ~RT_DV_MARK;
	}
	return 0;
}

static void put_free(struct rt_cpu *c, struct rt *rt, uint32_t i)
{
	uint32_t old;

	do {
		old = ld(&c->dyn_free);
		chunk(rt, i)->link = old;
	} while (!cas(&c->dyn_free, old, i));
}

static int quiet(struct rt *rt, uint32_t me, const uint64_t *snap)
{
	for (uint32_t j = 0; j < rt->ncpus; j++)
		if (j != me && (snap[j] & 1) &&
		    __atomic_load_n(&rt->cpu[j].epoch, __ATOMIC_SEQ_CST) == snap[j])
			return 0;
	return 1;
}

/*
 * Several CPUs, this one's free list empty: its rinsing chunks if every
 * other CPU has left the firing it was in when they were put there, the
 * dirty ones next; else another CPU's whole free list.  1 if it has some.
 */
static int refill(struct rt *rt, uint32_t me, struct rt_cpu *c)
{
	for (int pass = 0; pass < 2; pass++) {
		if (c->dyn_rinse && quiet(rt, me, c->dyn_snap)) {
			__atomic_store_n(&c->dyn_free, c->dyn_rinse, __ATOMIC_RELEASE);
			c->dyn_rinse = 0;
		}
		if (!c->dyn_rinse && c->dyn_dirty) {
			c->dyn_rinse = c->dyn_dirty;
			c->dyn_dirty = 0;
			for (uint32_t j = 0; j < rt->ncpus; j++)
				c->dyn_snap[j] = __atomic_load_n(&rt->cpu[j].epoch,
								 __ATOMIC_SEQ_CST);
		}
		if (ld(&c->dyn_free))
			return 1;
	}
	for (uint32_t j = 0; j < rt->ncpus; j++) {
		uint32_t got = j == me ? 0 :
			__atomic_exchange_n(&rt->cpu[j].dyn_free, 0, __ATOMIC_ACQ_REL);

		if (got) {
			__atomic_store_n(&c->dyn_free, got, __ATOMIC_RELEASE);
			return 1;
		}
	}
	return 0;
}

/* A chunk off this CPU's free list, or 0.  Only this CPU puts chunks on
   it, so the head cannot come back to i between the load and the swap. */
static uint32_t take(struct rt_mstate *ms)
{
	struct rt *rt = ms->rt;
	struct rt_cpu *c = ms->c;
	uint32_t i;

	if (rt->ncpus == 1) {
		if ((i = c->dyn_free) != 0)
			c->dyn_free = chunk(rt, i)->link;
		return i;
	}
	for (;;) {
		i = ld(&c->dyn_free);
		if (!i && !refill(rt, ms->cpu, c))
			return 0;
		if (i && cas(&c->dyn_free, i, chunk(rt, i)->link))
			return i;
	}
}

static uint8_t *value(struct rt *rt, uint32_t i)
{
	return (uint8_t *)(chunk(rt, i) + 1) + rt->dyn_keycap;
}

/* key is not in the chain that began at first: put it in, unless another
   CPU does first; its value, or 0 (a drop). */
static __attribute__((noinline)) uint8_t *
insert(struct rt_mstate *ms, uint32_t *head, uint32_t first,
       const uint8_t *key, uint32_t keylen, uint32_t hash)
{
	struct rt *rt = ms->rt;
	uint32_t i, fresh;
	struct rt_dvar *dv;

	if (!(fresh = take(ms))) {
		ms->stat->dynvar_drops++;
		return 0;
	}
	dv = chunk(rt, fresh);
	dv->hash = hash;
	dv->keylen = keylen;
	rt_memcpy(dv + 1, key, keylen);
	rt_memset((uint8_t *)(dv + 1) + rt->dyn_keycap, 0,
		  rt->dyn_chunksize - sizeof(*dv) - rt->dyn_keycap);
	for (;;) {
		__atomic_store_n(&dv->next, first, __ATOMIC_RELAXED);
		if (cas(head, first, fresh))
			return value(rt, fresh);
		first = ld(head);
		if ((i = lookup(rt, first, key, keylen, hash)) != 0) {
			put_free(ms->c, rt, fresh);
			return value(rt, i);
		}
	}
}

uint8_t *rt_dvar_get(struct rt_mstate *ms, const uint8_t *key,
		     uint32_t keylen, int alloc)
{
	struct rt *rt = ms->rt;
	uint32_t hash, *head, first, i;

	if (rt->dyn_nbuckets == 0) {
		if (alloc)
			ms->stat->dynvar_drops++;
		return 0;
	}
	hash = rt_hash(key, keylen, 0);
	head = &rt->dynhash[hash & (rt->dyn_nbuckets - 1)];
	first = ld(head);
	if ((i = lookup(rt, first, key, keylen, hash)) != 0)
		return value(rt, i);
	return alloc ? insert(ms, head, first, key, keylen, hash) : 0;
}

/*
 * Take marked chunk i out of its chain: swing the link holding it to its
 * (frozen) next.  A link that is itself marked belongs to a chunk another
 * CPU is deleting; it changes only once that one is out, so look again.
 */
static void unlink_chunk(struct rt *rt, uint32_t *head, uint32_t i)
{
	uint32_t succ = ld(&chunk(rt, i)->next) & ~RT_DV_MARK, *link, v;

	for (;;) {
		link = head;
		while ((v = ld(link)) != 0 && (v & ~RT_DV_MARK) != i)
			link = &chunk(rt, v & ~RT_DV_MARK)->next;
		if (v == 0 || (v == i && cas(link, i, succ)))
			return;
	}
}

void rt_dvar_del(struct rt_mstate *ms, const uint8_t *key, uint32_t keylen)
{
	struct rt *rt = ms->rt;
	uint32_t hash, *head, i, next;
	struct rt_dvar *dv;

	if (rt->dyn_nbuckets == 0)
		return;
	hash = rt_hash(key, keylen, 0);
	head = &rt->dynhash[hash & (rt->dyn_nbuckets - 1)];
	if (!(i = lookup(rt, ld(head), key, keylen, hash)))
		return;
	dv = chunk(rt, i);
	if (rt->ncpus == 1) {		/* nobody else walks the chain */
		uint32_t *link = head;

		while (*link != i)
			link = &chunk(rt, *link)->next;
		*link = dv->next;
		dv->link = ms->c->dyn_free;
		ms->c->dyn_free = i;
		return;
	}
	do {
		next = ld(&dv->next);
		if (next & RT_DV_MARK)
			return;		/* another CPU deletes it */
	} while (!cas(&dv->next, next, next | RT_DV_MARK));
	unlink_chunk(rt, head, i);
	dv->link = ms->c->dyn_dirty;
	ms->c->dyn_dirty = i;
}
