/*
 * machtrace baseline's data (tools/baseline/bldata.c): a measurement's
 * runs, their metrics and folded stacks, stored as JSON; the comparison
 * of two (blcompare.c).
 */
#ifndef MT_CMD_BASELINE_H
#define MT_CMD_BASELINE_H

#include <stdint.h>
#include <stdio.h>

enum bl_kind { BL_LATENCY, BL_COUNT };

/* A latency metric holds one sample per event (ns of the guest clock:
   instructions under -icount shift=0); a count holds one value. */
struct bl_metric {
	char *name;
	enum bl_kind kind;
	double *v;
	size_t n, cap;
};

struct bl_stack {
	char *stack;		/* root first, frames joined by ';' */
	uint64_t count;
};

/* Runs of one measurement: --runs N, the default, and the most a file
   may hold. */
#define BL_RUNS		5
#define BL_MAX_RUNS	100

/* One measurement session's metrics. */
struct bl_run {
	struct bl_metric *m;
	size_t nmetrics, mcap;
};

/*
 * A baseline, or the measurement of one compare: nruns sessions of the
 * same workload, each its own sample set (runs are the unit of the
 * comparison: docs/baselines.md); the stacks summed over the runs.
 */
struct bl_set {
	char workload[1024];
	char kernel[4096];	/* --kernel of the runs, "" the stock one */
	long seconds;		/* 0: until the workload ends */
	char icount[64];	/* MACHTRACE_ICOUNT of the runs, "" without */
	struct bl_run *run;
	size_t nruns, rcap;
	struct bl_stack *st;
	size_t nstacks, scap;
};

void bl_set_init(struct bl_set *s, const char *workload, long seconds,
		 const char *icount);
void bl_set_free(struct bl_set *s);
/* A new empty run at the end of s, or NULL. */
struct bl_run *bl_run_add(struct bl_set *s);
/* The metric of that name in r, or NULL. */
struct bl_metric *bl_metric(const struct bl_run *r, const char *name);
int bl_sample_add(struct bl_run *r, const char *name, enum bl_kind kind, double v);
int bl_stack_add(struct bl_set *s, const char *stack, uint64_t count);

/* 0, or -1 with a message in err. */
int bl_write(const struct bl_set *s, const char *path, char *err, size_t len);
int bl_read(struct bl_set *s, const char *path, char *err, size_t len);

/* Prints each metric that moved; 1 when one regressed. */
int bl_compare(const struct bl_set *old, const struct bl_set *cur, FILE *out);

/* PREFIX.new.svg and PREFIX.old.svg: the differential flame graph
   drawn both ways. */
int bl_flame_both(const struct bl_set *old, const struct bl_set *cur,
		  const char *prefix, char *err, size_t len);

#endif
