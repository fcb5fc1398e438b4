/*
 * The enabling image's msgids table (abi.h struct mt_msgid), for
 * mach_msgname()/mach_msgsubsystem() in probe context: every id the
 * msgids sources name (msgids/msgids.c, in their order of precedence),
 * ascending, with its routine and subsystem interned once in msgstr.
 * Only a program that calls one of the subroutines gets it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "link/link_int.h"
#include "machtrace/hmap.h"
#include "machtrace/msgids.h"

int link_uses_msgids(const struct mt_prog *prog)
{
	for (uint32_t i = 0; i < prog->ntext; i++) {
		mt_instr_t in = prog->text[i];

		if (MT_OP(in) == MT_OP_CALL && (MT_V16(in) == MT_SUBR_MACH_MSGNAME ||
						MT_V16(in) == MT_SUBR_MACH_MSGSUBSYSTEM))
			return 1;
	}
	return 0;
}

/* msgstr's strings, each once: offsets + 1 by the string. */
struct interner {
	struct lmsgtab *t;
	struct mt_hmap map;
	size_t cap;		/* bytes allocated for t->str */
};

struct str_key {
	const char *str, *s;
};

static int str_eq(const void *ctx, uintptr_t val)
{
	const struct str_key *k = ctx;

	return strcmp(k->str + val - 1, k->s) == 0;
}

/* The offset of s in msgstr, added if new; UINT32_MAX when out of memory. */
static uint32_t intern(struct interner *in, const char *s)
{
	struct lmsgtab *t = in->t;
	struct str_key k = { t->str, s };
	uint64_t h = mt_hash_str(s);
	uintptr_t v = mt_hmap_find(&in->map, h, str_eq, &k);
	size_t len = strlen(s) + 1;

	if (v)
		return (uint32_t)v - 1;
	if (t->strsize + len > in->cap) {
		size_t cap = 2 * in->cap + len;
		char *p = realloc(t->str, cap);

		if (!p)
			return UINT32_MAX;
		t->str = p;
		in->cap = cap;
	}
	if (mt_hmap_put(&in->map, h, (uintptr_t)t->strsize + 1) != 0)
		return UINT32_MAX;
	memcpy(t->str + t->strsize, s, len);
	t->strsize += (uint32_t)len;
	return t->strsize - (uint32_t)len;
}

static int fill(struct lmsgtab *t, const struct mt_msgids *m)
{
	size_t n = mt_msgids_count(m);
	struct interner in = { t, { 0 }, 0 };
	struct mt_msgid_entry e;
	int rc = -1;

	t->v = calloc(n ? n : 1, sizeof *t->v);
	if (!t->v)
		goto out;
	for (size_t i = 0; mt_msgids_entry(m, i, &e); i++) {
		struct mt_msgid *d = &t->v[t->n++];

		d->id = (int32_t)e.id;
		d->name = intern(&in, e.routine);
		d->subsystem = intern(&in, e.subsystem);
		d->flags = e.is_reply ? MT_MSGID_REPLY : 0;
		if (d->name == UINT32_MAX || d->subsystem == UINT32_MAX)
			goto out;
	}
	rc = 0;
out:
	mt_hmap_free(&in.map);
	return rc;
}

int link_msgtab(const struct mt_opts *opts, const char *sysdir, struct lmsgtab *t,
		char *err, size_t errlen)
{
	char why[512];
	struct mt_msgids *m = mt_msgids_open(sysdir, opts ? opts->msgids : NULL,
					     opts ? opts->nmsgids : 0, why, sizeof why);

	memset(t, 0, sizeof *t);
	if (!m) {
		snprintf(err, errlen, "msgids: %s", why);
		return -1;
	}
	if (fill(t, m) != 0) {
		link_msgtab_free(t);
		mt_msgids_free(m);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	mt_msgids_free(m);
	return 0;
}

void link_msgtab_free(struct lmsgtab *t)
{
	free(t->v);
	free(t->str);
	memset(t, 0, sizeof *t);
}
