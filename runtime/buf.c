/*
 * Principal and speculation buffers (probe context).
 *
 * Principal buffer per CPU: bytes [tail, head) of a ring of `size` bytes
 * hold committed records (abi.h mt_cpubuf).  A record never straddles the
 * end: the rest of the ring is marked with epid 0 and skipped.  head is
 * published (release) only after the record's bytes are written, so the
 * consumer never sees a partial record.  Policies:
 *   SWITCH  the consumer drains; a record that does not fit is dropped.
 *   FILL    the buffer is filled once (head never wraps); the first record
 *           that does not fit sets `filled` and it and every later record
 *           are dropped, except END records, for which end_reserve bytes
 *           are kept free.
 *   RING    never drops (unless a record exceeds the buffer): the oldest
 *           records are overwritten, the runtime advancing tail.
 *
 * Speculation buffers: per speculation, per CPU, `used` bytes of records
 * appended linearly; commit copies them (every CPU's, in CPU order) into
 * the committing CPU's principal buffer, discard forgets them.  Several
 * CPUs, no lock: speculation() takes a free one by compare-and-swap; a CPU
 * appends to its own part only while it holds the part (OPEN -> WRITING);
 * commit and discard close the speculation (ACTIVE -> CLOSING: one of
 * them wins), then shut each part, waiting out an append in progress on
 * its CPU (a few hundred bytes copied), so a part is read or reset only
 * when nobody writes it; an append finding its part shut or the
 * speculation closing is dropped as one to an inactive speculation is.
 * Parts reopen, and then the speculation is free.
 */
#include "rt.h"

static uint32_t recsize_at(struct rt *rt, const uint8_t *p, uint64_t room)
{
	uint32_t epid = *(const uint32_t *)p;

	if (epid == 0)
		return (uint32_t)room;
	return mt_rt_recsize(rt->img, epid);
}

/* RING: advance tail until `need` bytes are free. */
static void ring_make_room(struct rt *rt, struct mt_cpubuf *b,
			   const uint8_t *data, uint64_t need)
{
	while (b->size - (b->head - b->tail) < need) {
		uint64_t off = b->tail % b->size;
		uint32_t sz = recsize_at(rt, data + off, b->size - off);

		if (sz == 0 || sz > b->size - off)
			sz = (uint32_t)(b->size - off);
		__atomic_store_n(&b->tail, b->tail + sz, __ATOMIC_RELEASE);
	}
}

int rt_buf_put(struct rt *rt, uint32_t cpu, const void *rec, uint32_t len,
	       int is_end)
{
	struct mt_cpubuf *b = &rt->cpubuf[cpu];
	uint8_t *data = rt->cpu[cpu].buf;
	uint32_t policy = rt->img->opt.bufpolicy;
	uint64_t head = b->head, off, pad, limit;

	if (len > b->size)
		goto drop;
	off = head % b->size;
	pad = off + len > b->size ? b->size - off : 0;
	if (policy == MT_BUFPOLICY_FILL) {
		limit = b->size - (is_end ? 0 : rt->end_reserve);
		if ((b->filled && !is_end) || pad || head + len > limit) {
			b->filled = 1;
			goto drop;
		}
	} else if (policy == MT_BUFPOLICY_RING) {
		ring_make_room(rt, b, data, pad + len);
	} else {
		uint64_t tail = __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE);
		if (b->size - (head - tail) < pad + len)
			goto drop;
	}
	if (pad) {
		*(uint32_t *)(data + off) = 0;
		head += pad;
		off = 0;
	}
	rt_memcpy(data + off, rec, len);
	__atomic_store_n(&b->head, head + len, __ATOMIC_RELEASE);
	return 0;
drop:
	__atomic_store_n(&b->drops, b->drops + 1, __ATOMIC_RELAXED);
	return -1;
}

static struct rt_spec *spec(struct rt *rt, uint32_t id)
{
	return (struct rt_spec *)(rt->specs + (uint64_t)(id - 1) * rt->spec_stride);
}

static uint8_t *specdata(struct rt *rt, uint32_t id, uint32_t cpu)
{
	return rt->specdata + ((uint64_t)(id - 1) * rt->ncpus + cpu) *
		rt->specsize;
}

int rt_spec_active(struct rt *rt, uint64_t id)
{
	return id != 0 && id <= rt->nspec &&
		__atomic_load_n(&spec(rt, (uint32_t)id)->state,
				__ATOMIC_ACQUIRE) == RT_SPEC_ACTIVE;
}

static int cas32(uint32_t *p, uint32_t old, uint32_t new)
{
	return __atomic_compare_exchange_n(p, &old, new, 0, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

/* speculation(): a free buffer's id, or 0 (unavailable drop). */
uint64_t rt_speculation(struct rt_mstate *ms)
{
	struct rt *rt = ms->rt;

	for (uint32_t id = 1; id <= rt->nspec; id++)
		if (cas32(&spec(rt, id)->state, RT_SPEC_FREE, RT_SPEC_ACTIVE))
			return id;
	ms->stat->spec_unavail++;
	return 0;
}

/* Append a record to speculation id on this CPU. */
int rt_spec_put(struct rt_mstate *ms, uint32_t id, const void *rec,
		uint32_t len)
{
	struct rt *rt = ms->rt;
	struct rt_specpart *p;

	if (id == 0 || id > rt->nspec)
		return -1;
	p = &spec(rt, id)->part[ms->cpu];
	if (!cas32(&p->state, RT_PART_OPEN, RT_PART_WRITING))
		return -1;		/* being committed: as if not active */
	if (!rt_spec_active(rt, id)) {
		__atomic_store_n(&p->state, RT_PART_OPEN, __ATOMIC_RELEASE);
		return -1;
	}
	if (len > rt->specsize - p->used) {
		__atomic_store_n(&p->state, RT_PART_OPEN, __ATOMIC_RELEASE);
		goto drop;
	}
	rt_memcpy(specdata(rt, id, ms->cpu) + p->used, rec, len);
	p->used += len;
	__atomic_store_n(&p->state, RT_PART_OPEN, __ATOMIC_RELEASE);
	return 0;
drop:
	ms->stat->spec_drops++;
	return -1;
}

void rt_spec_commit(struct rt_mstate *ms, uint32_t id, int discard)
{
	struct rt *rt = ms->rt;
	struct rt_spec *s;

	if (id == 0 || id > rt->nspec)
		return;
	s = spec(rt, id);
	if (!cas32(&s->state, RT_SPEC_ACTIVE, RT_SPEC_CLOSING))
		return;
	for (uint32_t c = 0; c < rt->ncpus; c++) {
		struct rt_specpart *p = &s->part[c];
		const uint8_t *d = specdata(rt, id, c);
		uint64_t off = 0;

		while (!cas32(&p->state, RT_PART_OPEN, RT_PART_SHUT))
			;
		while (!discard && off < p->used) {
			uint32_t sz = mt_rt_recsize(rt->img, *(const uint32_t *)(d + off));
			if (sz == 0)
				break;
			rt_buf_put(rt, ms->cpu, d + off, sz, 0);
			off += sz;
		}
		p->used = 0;
	}
	for (uint32_t c = 0; c < rt->ncpus; c++)
		__atomic_store_n(&s->part[c].state, RT_PART_OPEN, __ATOMIC_RELEASE);
	__atomic_store_n(&s->state, RT_SPEC_FREE, __ATOMIC_RELEASE);
}
