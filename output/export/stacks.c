/*
 * The stacks of a trace, folded: each event's stack()/ustack() fields
 * (record.c writes them as "frame;frame;..." leaf first) turned root
 * first, the user stack below the kernel's, "+0x.." offsets dropped, and
 * counted.  The folded, flamegraph and speedscope exporters share it.
 */
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

/* fs's stacks, each once: index + 1 into fs->v by the stack. */
struct stack_tab {
	struct folded_set *fs;
	struct mt_hmap map;
};

static int
stack_eq(const void *ctx, uintptr_t val)
{
	const struct stack_tab *tb = ctx;

	return strcmp(tb->fs->v[val - 1].stack, tb->fs->v[tb->fs->n].stack) == 0;
}

/* Count stack (malloc'ed; taken, or freed when counted before). */
static int
tab_add(struct stack_tab *tb, char *stack)
{
	struct folded_set *fs = tb->fs;
	uint64_t h = mt_hash_str(stack);
	uintptr_t v;

	if (MT_VEC_ROOM(fs->v, fs->n, fs->cap, 256) != 0)
		return -1;
	fs->v[fs->n].stack = stack;	/* the key stack_eq compares */
	if ((v = mt_hmap_find(&tb->map, h, stack_eq, tb)) != 0) {
		fs->v[v - 1].count++;
		free(stack);
		return 0;
	}
	if (mt_hmap_put(&tb->map, h, fs->n + 1) != 0)
		return -1;
	fs->v[fs->n++].count = 1;
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
	struct stack_tab tb = { fs, { 0 } };
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
	mt_hmap_free(&tb.map);
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
