/*
 * The HTML report: a model fed one trace event at a time (by the CTF
 * reader's adapter, tools/report/report.c), then written as one
 * self-contained page (report_html.c): the model as JSON, d3 and
 * d3-flame-graph (npm, fetched by the build into build/web and linked into
 * machtrace), and our own small report.js / report.css.
 *
 * The model only aggregates what the events say; a view whose events the
 * trace lacks is written as absent (null) and the page says so.
 */
#ifndef MT_REPORT_H
#define MT_REPORT_H

#include <stdint.h>
#include <stdio.h>

struct rp;

struct rp *rp_new(void);
void rp_free(struct rp *r);

/* What was traced: free-form "key" -> "value" (program, events, kernel,
   workload...), shown in that order. */
int rp_meta(struct rp *r, const char *key, const char *value);

/* Every event goes through rp_event (per-name counts, trace span); the
   typed calls below add what a view needs. */
int rp_event(struct rp *r, uint64_t ts, int cpu, const char *name);
int rp_drops(struct rp *r, int cpu, uint64_t discarded);
int rp_sched_switch(struct rp *r, uint64_t ts, int cpu,
		    int64_t prev_tid, const char *prev_comm,
		    int64_t next_tid, const char *next_comm);
/* The thread cpu runs by its last sched_switch, or -1 when unknown. */
int64_t rp_cpu_thread(struct rp *r, int cpu);
/* An IPC message seen by thread tid (-1: unknown); routine is rpctrace's
   name ("ROUTINE" for a request, "ROUTINE-reply" for its reply); the
   message's destination and reply ports, 0 when unknown. */
int rp_ipc(struct rp *r, uint64_t ts, int is_send, int64_t tid,
	   const char *routine, uint64_t remote_port, uint64_t local_port);
/* A Mach trap entered or left by thread tid. */
int rp_syscall(struct rp *r, uint64_t ts, int is_entry, int64_t tid,
	       const char *trap);
/* One stack sample, frames from the leaf (0) to the root (n-1). */
int rp_stack(struct rp *r, const char *const *frames, int n,
	     uint64_t count);

/* Write the page.  Returns 0, or -1 with errno on a write error. */
int rp_write_html(struct rp *r, FILE *fp, const char *title);

#endif
