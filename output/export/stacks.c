/*
 * The stacks of a trace, folded: each event's stack()/ustack() fields
 * (record.c writes them as "frame;frame;..." leaf first) turned root
 * first, the user stack below the kernel's, "+0x.." offsets dropped, and
 * counted.  The folded, flamegraph and speedscope exporters share it.
 */
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

uint64_t
export_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static size_t
hash_str(const char *s)
{
	return (size_t)export_hash(s, strlen(s));
}

struct stack_tab {
	struct folded_set *fs;
	size_t *slot;			/* index + 1 into fs->v, 0 empty */
	size_t nslot;
};

static int
tab_grow(struct stack_tab *tb)
{
	size_t n = tb->nslot ? tb->nslot * 2 : 1024;
	size_t *s = calloc(n, sizeof(*s));

	if (s == NULL)
		return -1;
	for (size_t i = 0; i < tb->fs->n; i++) {
		size_t h = hash_str(tb->fs->v[i].stack) & (n - 1);
		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = i + 1;
	}
	free(tb->slot);
	tb->slot = s;
	tb->nslot = n;
	return 0;
}

static int
tab_add(struct stack_tab *tb, char *stack)
{
	struct folded_set *fs = tb->fs;
	size_t h;

	if ((fs->n + 1) * 2 > tb->nslot && tab_grow(tb) != 0)
		return -1;
	h = hash_str(stack) & (tb->nslot - 1);
	while (tb->slot[h]) {
		struct folded *f = &fs->v[tb->slot[h] - 1];
		if (strcmp(f->stack, stack) == 0) {
			f->count++;
			free(stack);
			return 0;
		}
		h = (h + 1) & (tb->nslot - 1);
	}
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 256;
		struct folded *v = realloc(fs->v, cap * sizeof(*v));
		if (v == NULL)
			return -1;
		fs->v = v;
		fs->cap = cap;
	}
	fs->v[fs->n].stack = stack;
	fs->v[fs->n].count = 1;
	tb->slot[h] = ++fs->n;
	return 0;
}

/* A frame's name, its control bytes (newline, ESC, ...) as \xNN. */
static void
put_name(FILE *m, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)b[i];

		if (ch < 0x20 || ch == 0x7f)
			fprintf(m, "\\x%02x", ch);
		else
			fputc(ch, m);
	}
}

/* Append the frames of s ("leaf;...;root") root first to m. */
static void
append_frames(FILE *m, const char *s, int *first)
{
	const char *end = s + strlen(s);

	while (end > s) {
		const char *b = end;
		size_t n;

		while (b > s && b[-1] != ';')
			b--;
		n = (size_t)(end - b);
		for (size_t i = 0; i + 2 < n; i++)
			if (b[i] == '+' && b[i + 1] == '0' && b[i + 2] == 'x') {
				n = i;
				break;
			}
		if (n) {
			fputs(*first ? "" : ";", m);
			put_name(m, b, n);
			*first = 0;
		}
		end = b > s ? b - 1 : s;
	}
}

static int
is_stack_field(const struct mt_trace_field *f, int user)
{
	const char *pfx = user ? "ustack" : "stack";

	return f->type == MT_TF_STR && strncmp(f->name, pfx, strlen(pfx)) == 0;
}

static char *
fold_event(const struct mt_trace_event *ev)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int first = 1, any = 0;

	for (uint32_t i = 0; i < ev->cls->nfields; i++)
		any |= is_stack_field(&ev->cls->fields[i], 0) ||
		       is_stack_field(&ev->cls->fields[i], 1);
	if (!any || (m = open_memstream(&buf, &len)) == NULL)
		return NULL;
	for (int user = 1; user >= 0; user--)
		for (uint32_t i = 0; i < ev->cls->nfields; i++)
			if (is_stack_field(&ev->cls->fields[i], user))
				append_frames(m, ev->vals[i].s, &first);
	fclose(m);
	if (buf && buf[0] == '\0') {
		free(buf);
		return NULL;
	}
	return buf;
}

static int
cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->stack,
		      ((const struct folded *)b)->stack);
}

int
stacks_collect(struct mt_trace *t, const struct mt_export_opts *o,
	       struct folded_set *fs, char *err, size_t errlen)
{
	struct stack_tab tb = { fs, NULL, 0 };
	struct mt_trace_event ev;
	uint64_t nev = 0;
	int rc;

	memset(fs, 0, sizeof(*fs));
	if (mt_trace_rewind(t, err, errlen) != 0)
		return -1;
	while ((rc = mt_trace_next(t, &ev, err, errlen)) == 1) {
		char *s = fold_event(&ev);

		export_progress(t, o, ++nev);
		if (s == NULL)
			continue;
		if (tab_add(&tb, s) != 0) {
			free(s);
			rc = -1;
			snprintf(err, errlen, "out of memory");
			break;
		}
		fs->total++;
	}
	free(tb.slot);
	if (rc < 0) {
		stacks_free(fs);
		return -1;
	}
	if (fs->n > 1)          /* qsort's base may not be NULL, even for 0 */
		qsort(fs->v, fs->n, sizeof(*fs->v), cmp_folded);
	return 0;
}

void
stacks_free(struct folded_set *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->v[i].stack);
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}
