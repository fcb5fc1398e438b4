/*
 * machtrace record: the session's records written as a CTF trace
 * (include/machtrace/trace.h) instead of printed.
 */
#ifndef MT_CMD_RECORD_H
#define MT_CMD_RECORD_H

#include <stddef.h>
#include <stdint.h>

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

/* record.c: the session's side (cli.h declares the entry points) */

#endif
