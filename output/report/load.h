/* The report's model from a recorded trace (output/report/from_trace.c). */
#ifndef MT_REPORT_LOAD_H
#define MT_REPORT_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include "output/report/report.h"

struct mt_trace;

/*
 * Feed every event of t (from its current position) and its env and
 * drops into r.  progress, when not NULL, is called now and then with the
 * stream bytes read and their total.  0, or -1 with a message in err.
 */
int rp_load_trace(struct rp *r, struct mt_trace *t,
		  void (*progress)(void *ctx, uint64_t done, uint64_t total),
		  void *ctx, char *err, size_t errlen);

#endif
