/*
 * Internals of the CTF reader (output/ctf/reader*.c).
 */
#ifndef MT_CTF_READER_INT_H
#define MT_CTF_READER_INT_H

#include <stdio.h>
#include "ctf_int.h"

struct ctf_env {
	char *key, *val;
};

/* One stream file, read whole; pos walks it packet by packet. */
struct ctf_rstream {
	char *path;
	uint8_t *data;
	size_t size;
	size_t pkt;			/* current packet's offset */
	size_t pkt_end;			/* end of its content */
	size_t pos;			/* next event */
	uint32_t cpu;
	uint64_t discarded;		/* events_discarded of the last packet */
	/* the decoded next event (valid when have) */
	int have;
	uint64_t ts;
	uint32_t id;
	struct mt_trace_value *vals;
	size_t nvals_cap;
};

struct mt_trace {
	struct ctf_env *env;
	uint32_t nenv;
	struct mt_trace_class *classes;
	uint32_t nclasses;
	int64_t clock_offset;
	struct ctf_rstream *streams;
	uint32_t nstreams;
	struct mt_trace_value *cur;	/* the event handed out last */
	size_t ncur;
};

int ctf_read_metadata(struct mt_trace *t, FILE *f, char *err, size_t errlen);

#endif
