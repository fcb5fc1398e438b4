/*
 * --format flamegraph: a self-contained SVG flame graph drawn as
 * flamegraph.pl draws one (Debian packages no flamegraph.pl, so this is
 * its small C counterpart): stacks sorted, a frame merged with its
 * neighbour's when they share the path from the root, width proportional
 * to the events under it, root at the bottom, a <title> per frame for the
 * tooltip.  No script: it displays in any browser or image viewer.
 */
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

#define FG_WIDTH	1200
#define FG_FRAME	16		/* px per level */
#define FG_PAD		10
#define FG_TOP		40		/* title */
#define FG_MAXDEPTH	512

struct open_frame {
	const char *name;		/* into the stack string */
	size_t len;
	uint64_t start;
	uint64_t ostart;		/* of the other run's events */
};

struct fg {
	FILE *out;
	uint64_t total;
	int maxdepth;
	double scale;			/* px per event */
	int pass;			/* 0: measure depth, 1: draw */
	int diff;			/* coloured by the change from other */
	uint64_t ototal;
};

/*
 * A differential frame's colour (Brendan Gregg's difffolded.pl): red
 * where the frame's share of the events grew from the other run's,
 * blue where it shrank, the deeper the larger the change of share.
 */
static void
diff_colour(const struct fg *g, uint64_t n, uint64_t other, unsigned rgb[3])
{
	double a = g->total ? (double)n / g->total : 0;
	double b = g->ototal ? (double)other / g->ototal : 0;
	double d = a > b ? (a - b) / a : b > 0 ? (b - a) / b : 0;
	unsigned k = (unsigned)(210 * (d > 1 ? 1 : d));

	rgb[0] = a >= b ? 255 : 255 - k;
	rgb[1] = 255 - k;
	rgb[2] = a <= b ? 255 : 255 - k;
}

static uint32_t
name_hash(const char *s, size_t n)
{
	uint32_t h = 0;

	for (size_t i = 0; i < n; i++)
		h = h * 31 + (unsigned char)s[i];
	return h;
}

static void
draw(struct fg *g, const struct open_frame *f, int depth, uint64_t end, uint64_t oend)
{
	double x = FG_PAD + f->start * g->scale, w = (end - f->start) * g->scale;
	double y = FG_TOP + (g->maxdepth - depth) * FG_FRAME;
	uint32_t h = name_hash(f->name, f->len);
	unsigned rgb[3] = { 205 + h % 50, 80 + (h >> 8) % 150, 30 + (h >> 16) % 50 };
	size_t chars = w > 20 ? (size_t)((w - 6) / 7) : 0;
	char *name;

	if (g->pass == 0 || w < 0.1)
		return;
	if ((name = strndup(f->name, f->len)) == NULL)
		return;
	if (g->diff)
		diff_colour(g, end - f->start, oend - f->ostart, rgb);
	fprintf(g->out, "<g><title>");
	mt_html_escape(g->out, name);
	fprintf(g->out, " (%llu events, %.2f%%", (unsigned long long)(end - f->start),
		100.0 * (end - f->start) / g->total);
	if (g->diff)
		fprintf(g->out, "; other run %llu, %.2f%%", (unsigned long long)(oend - f->ostart),
			g->ototal ? 100.0 * (oend - f->ostart) / g->ototal : 0.0);
	fprintf(g->out, ")</title><rect x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%d\" fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>",
		x, y, w, FG_FRAME - 1, rgb[0], rgb[1], rgb[2]);
	if (chars >= 3) {
		if (chars < f->len) {
			name[chars - 2] = '.';
			name[chars - 1] = '.';
			name[chars] = '\0';
		}
		fprintf(g->out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FG_FRAME - 4);
		mt_html_escape(g->out, name);
		fprintf(g->out, "</text>");
	}
	fprintf(g->out, "</g>\n");
	free(name);
}

/* Walk the sorted stacks, closing the frames a stack does not share with
   the previous one (drawn then) and opening its new ones. */
static void
walk(struct fg *g, const struct folded_set *fs)
{
	struct open_frame st[FG_MAXDEPTH];
	int depth = 0;
	uint64_t x = 0, ox = 0;

	for (size_t i = 0; i <= fs->n; i++) {
		const char *p = i < fs->n ? fs->v[i].stack : "";
		int d = 0;

		/* the shared prefix */
		while (d < depth && *p) {
			size_t n = strcspn(p, ";");
			if (n != st[d].len || strncmp(p, st[d].name, n) != 0)
				break;
			p += n + (p[n] == ';');
			d++;
		}
		while (depth > d) {
			depth--;
			draw(g, &st[depth], depth, x, ox);
		}
		while (*p && depth < FG_MAXDEPTH) {
			size_t n = strcspn(p, ";");
			st[depth].name = p;
			st[depth].len = n;
			st[depth].start = x;
			st[depth].ostart = ox;
			depth++;
			p += n + (p[n] == ';');
		}
		if (depth > g->maxdepth && g->pass == 0)
			g->maxdepth = depth;
		if (i < fs->n) {
			x += fs->v[i].count;
			ox += g->diff ? fs->v[i].other : 0;
		}
	}
}

static void
svg(FILE *out, const char *title, struct fg *g, const struct folded_set *fs)
{
	int height;

	g->pass = 0;
	g->total = fs->total;
	walk(g, fs);
	height = FG_TOP + (g->maxdepth + 1) * FG_FRAME + 2 * FG_PAD;
	g->scale = g->total ? (double)(FG_WIDTH - 2 * FG_PAD) / g->total : 0;
	g->pass = 1;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: monospace; font-size: 12px; fill: #000; }"
		"</style>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"#f8f8f0\"/>\n<text x=\"%d\" y=\"24\" style=\"font-size:17px\">",
		FG_WIDTH, height, FG_WIDTH, height, FG_WIDTH, height, FG_PAD);
	mt_html_escape(out, title);
	fprintf(out, "</text>\n");
	if (g->total == 0)
		fprintf(out, "<text x=\"%d\" y=\"%d\">no stacks in this trace: record "
			"stack() or ustack()</text>\n", FG_PAD, FG_TOP + FG_FRAME);
	else
		fprintf(out, "<text x=\"%d\" y=\"%d\">%llu events with a stack, %zu "
			"distinct stacks%s</text>\n", FG_PAD, height - FG_PAD,
			(unsigned long long)g->total, fs->n,
			g->diff ? "; red: a larger share than in the other run, blue: smaller" : "");
	walk(g, fs);
	fprintf(out, "</svg>\n");
}

static int
cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->stack, ((const struct folded *)b)->stack);
}

int
mt_flame_diff_svg(FILE *out, const char *title, const struct mt_flame_diff *v,
		  size_t n)
{
	struct folded_set fs = { NULL, 0, 0, 0 };
	struct fg g = { out, 0, 0, 0, 0, 1, 0 };

	if (n && (fs.v = calloc(n, sizeof(*fs.v))) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		fs.v[i].stack = (char *)v[i].stack;
		fs.v[i].count = v[i].count;
		fs.v[i].other = v[i].other;
		fs.total += v[i].count;
		g.ototal += v[i].other;
	}
	fs.n = n;
	qsort(fs.v, n, sizeof(*fs.v), cmp_folded);
	svg(out, title, &g, &fs);
	free(fs.v);
	return ferror(out) ? -1 : 0;
}

int
mt_export_flamegraph(struct mt_trace *t, FILE *out,
		     const struct mt_export_opts *o, char *err, size_t errlen)
{
	const char *title = o && o->title ? o->title : "machtrace flame graph";
	struct folded_set fs;
	struct fg g = { out, 0, 0, 0, 0, 0, 0 };

	if (stacks_collect(t, o, &fs, err, errlen) != 0)
		return -1;
	svg(out, title, &g, &fs);
	stacks_free(&fs);
	return 0;
}
