/*
 * mach_msgname(id) and mach_msgsubsystem(id): a Mach message id's MIG
 * routine and subsystem, from the enabling image's msgids table (abi.h
 * struct mt_msgid; rpctrace's naming).  The verifier checked the table:
 * inside the image, ids strictly ascending, every offset inside msgstr,
 * msgstr NUL-terminated.  Each load below is bounds-checked again anyway,
 * so a lookup can never leave the table.
 */
#include "rt.h"

static const struct mt_msgid *msgids(const struct mt_image *img)
{
	return (const struct mt_msgid *)((const uint8_t *)img + img->msgids_off);
}

/* The entry of id, or NULL: binary search of the sorted table. */
static const struct mt_msgid *find(const struct mt_image *img, int64_t id)
{
	const struct mt_msgid *v = msgids(img);
	uint32_t lo = 0, hi = img->nmsgids;

	while (lo < hi) {	/* first entry with v[i].id >= id */
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < img->nmsgids && v[lo].id == id ? &v[lo] : 0;
}

/* Appends msgstr[off..] to out[*k..size-1], bounded by msgstr's end. */
static void put_str(const struct mt_image *img, uint32_t off, char *out,
		    uint32_t size, uint32_t *k)
{
	const char *s = (const char *)img + img->msgstr_off;

	for (; off < img->msgstr_size && s[off] && *k + 1 < size; off++)
		out[(*k)++] = s[off];
}

static void put_lit(const char *s, char *out, uint32_t size, uint32_t *k)
{
	for (; *s && *k + 1 < size; s++)
		out[(*k)++] = *s;
}

static void put_num(int64_t v, char *out, uint32_t size, uint32_t *k)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0 && *k + 1 < size)
		out[(*k)++] = '-';
	while (n > 0 && *k + 1 < size)
		out[(*k)++] = tmp[--n];
}

/*
 * Writes id's routine (subsystem == 0) or subsystem (1) into out[size],
 * NUL-terminated and truncated: ROUTINE, ROUTINE-reply for a reply id
 * (its table entry says so, or (id / 100) % 2 == 1 and id - 100 is a
 * request), else the id in decimal and subsystem "".  Returns 1 if known.
 */
int rt_msgid_name(const struct mt_image *img, int64_t id, int subsystem,
		  char *out, uint32_t size)
{
	const struct mt_msgid *e = find(img, id);
	int reply = 0;
	uint32_t k = 0;

	if (size == 0)
		return 0;
	if (e)
		reply = (e->flags & MT_MSGID_REPLY) != 0;
	else if ((id / 100) % 2 == 1 && (e = find(img, id - 100)) &&
		 !(e->flags & MT_MSGID_REPLY))
		reply = 1;
	else
		e = 0;
	if (!e) {
		if (!subsystem)
			put_num(id, out, size, &k);
	} else if (subsystem) {
		put_str(img, e->subsystem, out, size, &k);
	} else {
		put_str(img, e->name, out, size, &k);
		if (reply)
			put_lit("-reply", out, size, &k);
	}
	out[k] = '\0';
	return e != 0;
}

/* The subroutines: the string in scratch (strsize bytes). */
uint64_t rt_msgname(struct rt_mstate *ms, int64_t id, int subsystem)
{
	char *d = (char *)(uintptr_t)rt_alloc(ms, ms->rt->strsize);

	if (!d)
		return 0;
	rt_msgid_name(ms->rt->img, id, subsystem, d, ms->rt->strsize);
	return (uint64_t)(uintptr_t)d;
}
