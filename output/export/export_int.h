/*
 * Internals of the exporters (output/export/).
 */
#ifndef MT_EXPORT_INT_H
#define MT_EXPORT_INT_H

#include <stdio.h>
#include "machtrace/esc.h"	/* mt_html_escape */
#include "machtrace/json.h"
#include "machtrace/export.h"

/* stacks.c: every stack of the trace, folded (root first, frames joined
   by ';', offsets dropped, a control byte in a name as \xNN so that a
   name cannot start a line), with how many events recorded it. */
struct folded {
	char *stack;
	uint64_t count;
	uint64_t other;		/* a differential graph's other run */
};
struct folded_set {
	struct folded *v;
	size_t n, cap;
	uint64_t total;
};
/* FNV-1a of n bytes of s. */
uint64_t export_hash(const char *s, size_t n);
int stacks_collect(struct mt_trace *t, const struct mt_export_opts *o,
		   struct folded_set *fs, char *err, size_t errlen);
void stacks_free(struct folded_set *fs);

/* imap.c: a map from 64-bit keys to values (index-stable: pointers into it
   are valid until the next imap_get that adds). */
struct imap_ent {
	int64_t key;
	int64_t a, b, c;		/* the user's */
	char *name;			/* the user's, freed by imap_free */
	int used;
};
struct imap {
	struct imap_ent *e;
	size_t n, cap;			/* cap: a power of 2 */
};
/* The entry of key, added (zeroed) when add and new; NULL otherwise. */
struct imap_ent *imap_get(struct imap *m, int64_t key, int add);
void imap_del(struct imap *m, int64_t key);
void imap_free(struct imap *m);

/* progress.c: progress every 4096 events. */
void export_progress(struct mt_trace *t, const struct mt_export_opts *o,
		     uint64_t nev);

#endif
