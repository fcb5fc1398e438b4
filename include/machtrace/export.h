/*
 * Exporting a recorded trace (include/machtrace/trace.h) to the formats
 * other tools read: Chrome's trace-event JSON (Perfetto UI,
 * chrome://tracing), folded stacks (flamegraph.pl), a flame graph SVG,
 * speedscope's JSON.  Host code only; a library: each returns 0, or -1
 * with a message in err.
 */
#ifndef MACHTRACE_EXPORT_H
#define MACHTRACE_EXPORT_H

#include <stdio.h>
#include "machtrace/trace.h"

/* Called now and then while reading: bytes of the streams read, total. */
typedef void (*mt_export_progress)(void *arg, uint64_t done, uint64_t total);

struct mt_export_opts {
	mt_export_progress progress;	/* may be NULL */
	void *progress_arg;
	const char *title;		/* flame graph / profile name */
};

int mt_export_chrome(struct mt_trace *t, FILE *out,
		     const struct mt_export_opts *o, char *err, size_t errlen);
int mt_export_folded(struct mt_trace *t, FILE *out,
		     const struct mt_export_opts *o, char *err, size_t errlen);
int mt_export_flamegraph(struct mt_trace *t, FILE *out,
			 const struct mt_export_opts *o, char *err,
			 size_t errlen);
int mt_export_speedscope(struct mt_trace *t, FILE *out,
			 const struct mt_export_opts *o, char *err,
			 size_t errlen);

/*
 * A differential flame graph (difffolded.pl's): stacks v[0..n) (root
 * first, frames joined by ';') drawn with widths from count, coloured
 * red where a frame's share of the events is larger than its share of
 * other (the other run's counts), blue where smaller.  Drawing it
 * again with count and other swapped gives the other view.  0, or -1.
 */
struct mt_flame_diff {
	const char *stack;
	uint64_t count, other;
};

int mt_flame_diff_svg(FILE *out, const char *title,
		      const struct mt_flame_diff *v, size_t n);

#endif
