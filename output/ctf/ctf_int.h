/*
 * Internals of the CTF writer and reader (output/ctf/).
 */
#ifndef MT_CTF_INT_H
#define MT_CTF_INT_H

#include <stdio.h>
#include "machtrace/trace.h"

#define CTF_MAGIC	0xC1FC1FC1u
#define CTF_PKT_HDR	60		/* packet header + context bytes */
#define CTF_EV_HDR	12		/* event header bytes */
#define MT_CTF_PACKET	(256 * 1024)	/* event bytes per packet */
#define CTF_MAX_CPUS	4096		/* streams written; packet cpu_id below */
/* CPU N's stream file, as LTTng names them (Trace Compass's per-CPU views);
   recordings made before were named stream_N, which the reader still reads */
#define CTF_STREAM_PREFIX "channel0_"
#define CTF_OLD_STREAM_PREFIX "stream_"
#define CTF_SESSION_DOMAIN "kernel"	/* a session's trace: DIR/kernel */

struct ctf_stream {
	FILE *f;
	uint8_t *buf;			/* the open packet's events */
	size_t len, cap;
	uint64_t pkt_begin, last_ts;
	uint64_t seq, npkt_events;
	uint64_t discarded, flushed_disc;
};

struct mt_trace_writer {
	char *dir;
	uint32_t ncpus;
	struct ctf_stream *streams;
	struct mt_trace_class *classes;
	uint32_t nclasses;
	struct mt_trace_env env;
	uint64_t nevents, ndiscarded;
	int probe_cost;			/* set: write the two below */
	uint64_t probe_firings, probe_ns;
};

/* tsdl.c */
/* A CTF identifier for a field name: "_" + [A-Za-z0-9_] (others '_');
   an empty name becomes "_fI".  Malloc'ed. */
char *ctf_ident(const char *name, uint32_t i);
int ctf_write_metadata(const struct mt_trace_writer *w, const char *path);

#endif
