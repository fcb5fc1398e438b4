/*
 * machtrace record: the session's records written as a CTF trace
 * (include/machtrace/trace.h) instead of printed.
 */
#ifndef MT_TOOLS_RECORD_H
#define MT_TOOLS_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "machtrace/options.h"
#include "machtrace/session.h"

/* --events groups */
enum { EV_SCHED = 1, EV_IPC = 2, EV_VM = 4, EV_PROC = 8, EV_TRAP = 16 };

/* A generated clause: its D text, event name and field names. */
struct rec_gen {
	unsigned group;
	const char *d;
	const char *name;		/* NULL: by function (vm faults) */
	int by_func;			/* name + the probe's function */
	const char *fields;		/* comma-separated, one per trace() */
};

/* events.c */
int rec_events_parse(const char *list, unsigned *mask, char *err, size_t len);
char *rec_events_program(unsigned mask, uint32_t *nclauses);
const struct rec_gen *rec_events_clause(unsigned mask, uint32_t k);
void rec_events_name(const struct rec_gen *g, const char *func, char *buf,
		     size_t len);

/*
 * record.c: a client of the session writing its records into a CTF trace
 * in dir: --events' groups (mask) generated the program's first nclauses
 * clauses; opts' msgids name IPC messages; program, events (as given),
 * workload and kernel are what the trace's env shows (the report prints
 * them).  The strings must outlive the session.
 */
struct rec_state;
struct tool_record {
	const char *dir;
	unsigned mask;
	uint32_t nclauses;
	const char *events;
	const char *program;
	const char *workload;
	const char *kernel;
	const struct mt_opts *opts;
	struct rec_state *rs;		/* while recording */
	char progbuf[4096];		/* program's text */
	size_t proglen;
};
/* h: the client recording into r (r its arg, kept by the caller). */
void tool_record_client(struct tool_record *r, struct mt_session_client *h);

/*
 * setup.c: r and its client h from record's command line (a): -o DIR is
 * required; with --events, *gen is the generated clauses' text and
 * *gen_name its name in messages ("--events LIST"), the caller's to free
 * and to compile first; without, the user's programs (nprogs) must not be
 * none.  0, or -1 (after saying why on err, but when out of memory).
 */
struct tool_record_args {
	const char *dir;
	unsigned events;
	const char *events_list;
	const struct mt_opts *opts;
	int nprogs;
	FILE *err;
};
int tool_record_setup(struct tool_record *r, const struct tool_record_args *a,
		      char **gen, char **gen_name, struct mt_session_client *h);
/* The trace's env: each user program in order (a -s script by its path),
   then the machine's workload and kernel. */
void tool_record_program(struct tool_record *r, int is_file, const char *s);
void tool_record_machine(struct tool_record *r, const struct mt_session_machine *m);

#endif
