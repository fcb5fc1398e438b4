/*
 * The exporters' progress reports (mt_export_opts.progress).
 */
#include "export_int.h"

void
export_progress(struct mt_trace *t, const struct mt_export_opts *o,
		uint64_t nev)
{
	if (o && o->progress && nev % 4096 == 0)
		o->progress(o->progress_arg, mt_trace_bytes_read(t),
			    mt_trace_stream_bytes(t));
}
