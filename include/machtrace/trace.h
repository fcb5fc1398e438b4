/*
 * Recorded traces: CTF 1.8 (the Common Trace Format LTTng writes, read by
 * babeltrace2 and Trace Compass).  A trace is a directory holding
 * `metadata` (plain-text TSDL) and one stream file per CPU, `stream_N`.
 * The writer (output/ctf/writer.c) is used by `machtrace record`, the
 * reader (output/ctf/reader.c) by `export` and `report`; the reader reads
 * what the writer writes (a fixed subset of CTF), not arbitrary CTF.
 *
 * Data model: an event has a class (a name and a list of fields), a CPU
 * and a timestamp in ns of the trace's clock (frequency 1e9; add
 * clock_offset_ns for ns since the Unix epoch).  Field values are signed
 * or unsigned integers of 1, 2, 4 or 8 bytes, NUL-terminated strings, or
 * byte arrays of a fixed size.  Host code only; a library: errors are
 * returned (with a message in err), never exit().
 */
#ifndef MACHTRACE_TRACE_H
#define MACHTRACE_TRACE_H

#include <stddef.h>
#include <stdint.h>

enum mt_tf_type {
	MT_TF_INT = 1,			/* signed integer, size bytes */
	MT_TF_UINT,			/* unsigned integer, size bytes */
	MT_TF_HEX,			/* unsigned, shown in hex (pointers) */
	MT_TF_STR,			/* NUL-terminated string */
	MT_TF_BYTES			/* size bytes */
};

struct mt_trace_field {
	char *name;
	uint16_t type;			/* MT_TF_* */
	uint32_t size;			/* bytes: 1, 2, 4, 8 for integers */
};

struct mt_trace_class {
	uint32_t id;			/* the CTF event id: index in the trace */
	char *name;
	uint32_t nfields;
	struct mt_trace_field *fields;
};

/* One field value: i for integers, s for strings, bytes for MT_TF_BYTES. */
struct mt_trace_value {
	int64_t i;			/* MT_TF_UINT/HEX: the bits, as uint64 */
	const char *s;
	const uint8_t *bytes;
};

/* Trace environment entries: the writer's, read back by the reader. */
struct mt_trace_env {
	const char *hostname;		/* NULL: gethostname() */
	const char *trace_name;		/* NULL: the directory's basename */
	int64_t clock_offset_ns;	/* the clock's offset from the epoch */
	/* what was traced: env entries machtrace_program, _events,
	   _workload, _kernel (NULL: not written) */
	const char *program, *events, *workload, *kernel;
};

/* ------------------------------------------------------------------ writer */

struct mt_trace_writer;

/* Creates DIR (which must not exist, or be empty) for ncpus streams. */
struct mt_trace_writer *mt_trace_create(const char *dir, uint32_t ncpus,
					const struct mt_trace_env *env,
					char *err, size_t errlen);
/*
 * The same trace laid out as an LTTng session lays out its kernel trace:
 * DIR (which must not exist, or be empty) holds it in DIR/kernel, where
 * LTTng's analyses and Trace Compass expect a kernel trace.
 */
struct mt_trace_writer *mt_trace_create_session(const char *dir,
						uint32_t ncpus,
						const struct mt_trace_env *env,
						char *err, size_t errlen);
/*
 * A new event class; fields are copied.  Returns its id (>= 0), or -1.
 * Classes may be added until mt_trace_close(), which writes the metadata.
 */
int mt_trace_add_class(struct mt_trace_writer *w, const char *name,
		       const struct mt_trace_field *fields, uint32_t nfields);
/*
 * Append an event to cpu's stream: vals[] has the class's nfields values.
 * A timestamp lower than the stream's last one is raised to it, so that
 * time never goes backwards in a stream.  0, or -1 (I/O error).
 */
int mt_trace_event(struct mt_trace_writer *w, uint32_t cpu, uint64_t ts,
		   uint32_t class_id, const struct mt_trace_value *vals);
/* The tracer's own cost over the recording, written at close as env
   machtrace_probe_firings and machtrace_probe_ns (docs/recording.md). */
void mt_trace_set_probe_cost(struct mt_trace_writer *w, uint64_t firings,
			     uint64_t ns);
/* Set the clock's offset from the epoch (ns) written at close. */
void mt_trace_set_clock_offset(struct mt_trace_writer *w, int64_t ns);
/* cpu's stream lost n events (the packet's events_discarded grows). */
void mt_trace_discarded(struct mt_trace_writer *w, uint32_t cpu, uint64_t n);
/* Events written / discarded so far, all streams. */
uint64_t mt_trace_nevents(const struct mt_trace_writer *w);
uint64_t mt_trace_ndiscarded(const struct mt_trace_writer *w);
/* Flush the packets, write the metadata, free w.  0 or -1. */
int mt_trace_close(struct mt_trace_writer *w, char *err, size_t errlen);
/* Free w without writing anything more (after an error). */
void mt_trace_abort(struct mt_trace_writer *w);

/* ------------------------------------------------------------------ reader */

struct mt_trace;

struct mt_trace_event {
	uint64_t ts;			/* ns, the trace clock */
	uint32_t cpu;
	const struct mt_trace_class *cls;
	const struct mt_trace_value *vals;	/* [cls->nfields], valid until
						   the next mt_trace_next() */
};

/* dir is a trace (dir/metadata) or a session holding one (dir/kernel). */
struct mt_trace *mt_trace_open(const char *dir, char *err, size_t errlen);
void mt_trace_free(struct mt_trace *t);

uint32_t mt_trace_nclasses(const struct mt_trace *t);
const struct mt_trace_class *mt_trace_class(const struct mt_trace *t,
					    uint32_t id);
/* The class named name, or NULL. */
const struct mt_trace_class *mt_trace_class_named(const struct mt_trace *t,
						  const char *name);
/* An env entry as a string (integers in decimal), or NULL. */
const char *mt_trace_env_get(const struct mt_trace *t, const char *key);
int64_t mt_trace_clock_offset(const struct mt_trace *t);
uint32_t mt_trace_ncpus(const struct mt_trace *t);
/* Sum of the streams' events_discarded (their last packets'). */
uint64_t mt_trace_discarded_total(const struct mt_trace *t);
/* Total bytes of the stream files (for progress). */
uint64_t mt_trace_stream_bytes(const struct mt_trace *t);
/* Bytes of the stream files consumed so far. */
uint64_t mt_trace_bytes_read(const struct mt_trace *t);

/* Every env entry, in the metadata's order: 0, or -1 past the end. */
uint32_t mt_trace_nenv(const struct mt_trace *t);
int mt_trace_env_at(const struct mt_trace *t, uint32_t i, const char **key,
		    const char **val);
/* cpu's events_discarded (its streams' last packets'). */
uint64_t mt_trace_discarded_cpu(const struct mt_trace *t, uint32_t cpu);

/*
 * The next event, all streams merged in timestamp order (ties: lower CPU
 * first).  1 with *ev filled, 0 at the end, -1 on a malformed stream
 * (message in err).
 */
int mt_trace_next(struct mt_trace *t, struct mt_trace_event *ev,
		  char *err, size_t errlen);
/* Start again from the first event. */
int mt_trace_rewind(struct mt_trace *t, char *err, size_t errlen);

/* The index of field name in cls, or -1. */
int mt_trace_field_index(const struct mt_trace_class *cls, const char *name);
/* Field name of ev: 0 and the value, or -1 when ev has no such field. */
int mt_trace_get_int(const struct mt_trace_event *ev, const char *name,
		     int64_t *v);
const char *mt_trace_get_str(const struct mt_trace_event *ev,
			     const char *name);

#endif /* MACHTRACE_TRACE_H */
