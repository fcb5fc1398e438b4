/* The report model's layout, shared by report.c and report_html.c. */
#ifndef MT_REPORT_IMPL_H
#define MT_REPORT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "machtrace/hmap.h"
#include "machtrace/vec.h"
#include "output/report/report.h"

struct rp_meta {
	char *key, *value;
};

struct rp_name {
	char *name;
	uint64_t count;
};

struct rp_cpu {
	uint64_t nevents, discarded;
	int running;			/* cur_tid known (a sched_switch seen) */
	int64_t cur_tid;
	uint64_t cur_since;
};

struct rp_slice {
	uint64_t start, end;
	int cpu;
};

struct rp_thread {
	int64_t tid;
	char *comm;
	struct rp_slice *slices;
	size_t nslices, slices_cap;
	uint64_t oncpu;
};

/* One routine (or trap): messages (entries) and replies (exits) seen,
   the latencies of the calls matched. */
struct rp_row {
	char *name;
	uint64_t sends, receives;
	uint64_t *lat;
	size_t nlat, lat_cap;
};

/* A call in flight, by its thread or by its reply port. */
struct rp_pend {
	int64_t key;
	long row;
	uint64_t ts;
	int active;
};

struct rp_pendtab {
	struct rp_pend *pend;
	size_t npend, pend_cap;
	struct mt_hmap map;
};

struct rp_point {
	uint64_t ts, lat;
};

enum { RP_LAT_RPC, RP_LAT_TRAP };

struct rp_lat_table {
	int present;			/* the trace has these events */
	struct rp_row *rows;
	size_t nrows, rows_cap;
	struct mt_hmap row_map;
	struct rp_pendtab by_tid, by_port;
	struct rp_point *points;
	size_t npoints, points_cap;
};

struct rp_node {
	char *name;
	int owned;
	uint64_t value;
	struct rp_node **kids;
	size_t nkids, kids_cap;
};

struct rp {
	struct rp_meta *meta;
	size_t nmeta, meta_cap;
	struct rp_name *names;
	size_t nnames, names_cap;
	struct mt_hmap name_map;
	uint64_t nevents, t0, t1;
	struct rp_cpu *cpus;
	size_t ncpus;
	int have_drops;			/* packets carried events_discarded */
	struct rp_thread *threads;
	size_t nthreads, threads_cap;
	struct mt_hmap thread_map;
	uint64_t nswitches, nslices;
	struct rp_lat_table lat[2];
	struct rp_node root;
	uint64_t nsamples;
};


#endif
