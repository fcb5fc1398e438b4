/*
 * Consumer internals shared by the consumer/ sources.  Single-threaded: everything
 * here is touched only by the thread running the session loop.
 */
#ifndef MT_CONSUMER_IMPL_H
#define MT_CONSUMER_IMPL_H

#include <stdio.h>
#include "machtrace/consumer.h"
#include "machtrace/hmap.h"
#include "machtrace/json.h"
#include "machtrace/vec.h"

/*
 * One aggregation entry of the consumer's snapshot: the per-CPU entries of
 * the runtime merged.  key points at the key bytes after the aggid word
 * (keysize - 8 bytes).  base, when set, holds the values at the time the
 * entry was removed by trunc(@, n): the entry stays hidden while the
 * runtime's values equal base, and shows the difference once they move.
 */
/* dtrace's DTRACEDROP_* kinds, as the JSON drop records give them. */
enum { JD_PRINCIPAL = 0, JD_AGGREGATION = 1, JD_DYNAMIC = 2, JD_SPEC = 5,
       JD_SPECUNAVAIL = 7, MT_JSON_NDROPKINDS = 10 };

struct agg_ent {
	uint64_t hash;			/* hash_key(), its key in ahash */
	uint32_t aggid;
	uint8_t *key;
	int64_t *vals;			/* shown: raw - base (additive functions) */
	int64_t *base;			/* raw values at the last clear()/trunc() */
	uint64_t gen, base_gen;		/* runtime update counts, summed over CPUs */
	int hide_unchanged;		/* trunc(): hidden until updated again */
	int hidden;
	int seen;			/* found in the latest snapshot */
};

struct mt_consumer {
	const struct mt_prog *prog;
	const struct mt_image *img;
	struct mt_opts *opts;
	struct mt_target *target;
	struct mt_symsrc syms;		/* for stack(), sym(), %a ... */
	FILE *out, *err;
	FILE *orig_out;			/* out before any freopen() */
	mt_rechook rechook;		/* recording: records go there */
	void *rechook_arg;
	struct mt_cb *cb;
	char errmsg[512];

	int heading;			/* column header printed */
	int indent;			/* flowindent depth */
	int exited, status;
	uint64_t exit_ts;		/* timestamp of the first exit() record */
	uint32_t exit_cpu;		/* and its CPU */
	int filled;			/* a FILL buffer filled up */

	/* drops already reported, per CPU */
	/* the CPUs drained: cb->ncpus at attach, at most the image's (the
	   control block is guest memory a failing kernel may overwrite) */
	uint32_t ncpus;
	uint64_t *seen_drops;
	struct mt_cpustat *seen_stat;
	uint64_t status_ns;		/* last status check (0: none yet) */

	/* aggregation snapshot */
	int snap_valid;			/* snapshot taken since last drain */
	struct mt_hmap ahash;		/* of the agg_ents by aggid and key */
	struct agg_ent **ents;
	size_t nents, capents;
	uint64_t *normal;		/* [naggs + 1] normalize() factors */
	uint8_t *printed;		/* [naggs + 1] printed by printa() */
	uint32_t **keyoff;		/* [naggs][nkeys + 1] key element offsets */
	int64_t *zeros;			/* max nvals zeros: a missing value */
	struct modkey {			/* mod() keys: one address per name */
		char *name;
		uint64_t pc;
	} *modkeys;
	size_t nmodkeys;
	uint8_t *keybuf;		/* a key being canonicalised */

	const struct out_ops *o;	/* out_text or out_json (oformat) */

	/* -xoformat=json (jsonout.c): one document on out */
	struct mt_json jw;
	int jstate;			/* JS_* */
	uint64_t jdrops[MT_JSON_NDROPKINDS];	/* totals per kind */
};

/* The JSON document's state: not begun, "probes" open, complete. */
enum { JS_NONE, JS_OPEN, JS_CLOSED };

/*
 * The consumer's output, as bpftrace's Output: the actions say what a
 * record holds and the format (textout.c, jsonout.c) says how it reads.
 * error, drop and liberr see what stderr says in both formats (the
 * callers print that); finish's aggs: the aggregations not printed yet
 * (mt_consume_final), else only what closes the output.
 */
struct out_ops {
	void (*rec_begin)(struct mt_consumer *c, const struct mt_rechdr *h,
			  uint32_t epid, const struct mt_probe *p);
	void (*rec_end)(struct mt_consumer *c);
	void (*trace)(struct mt_consumer *c, const struct mt_rec *r,
		      const struct mt_rec_info *ri, const uint8_t *d);
	/* printf(): its text and its arguments */
	void (*message)(struct mt_consumer *c, const char *msg,
			const struct mt_pfarg *args, int nargs);
	void (*printa)(struct mt_consumer *c, const char *fmt,
		       const uint32_t *aggids, int n);
	void (*stack)(struct mt_consumer *c, int user, const uint8_t *p,
		      uint32_t size);
	void (*tracemem)(struct mt_consumer *c, const uint8_t *p, size_t n);
	/* sym(), mod(), usym(), umod(), uaddr() */
	void (*sym)(struct mt_consumer *c, const struct mt_rec_info *ri,
		    const uint8_t *d);
	void (*print)(struct mt_consumer *c, const struct mt_action *a,
		      const uint8_t *data);
	void (*exit)(struct mt_consumer *c, int status);
	void (*system)(struct mt_consumer *c, const char *cmd);
	void (*freopen)(struct mt_consumer *c, const char *path);
	void (*ftruncate)(struct mt_consumer *c);
	void (*liberr)(struct mt_consumer *c, const char *msg);
	void (*error)(struct mt_consumer *c, const struct mt_rechdr *h,
		      const struct mt_errrec *e, const struct mt_probe *p,
		      const char *fault, uint32_t offset, const char *msg);
	void (*drop)(struct mt_consumer *c, int kind, int cpu, uint64_t n,
		     const char *msg);
	void (*finish)(struct mt_consumer *c, int aggs);
};
extern const struct out_ops out_text, out_json;
/* textout.c: print() as text (also what JSON's print() holds) */
void text_print(struct mt_consumer *c, const struct mt_action *a,
		const uint8_t *data);

/* agg.c */
int agg_setup(struct mt_consumer *c);
void agg_free(struct mt_consumer *c);
int agg_snapshot(struct mt_consumer *c);
/* printa(): fmt NULL for the default layout. */
int agg_printa(struct mt_consumer *c, FILE *fp, const char *fmt,
	       const uint32_t *aggids, int naggids);
/* The exit printout of aggregations not yet printed. */
int agg_print_all(struct mt_consumer *c, FILE *fp);
void agg_clear(struct mt_consumer *c, uint32_t aggid);
void agg_trunc(struct mt_consumer *c, uint32_t aggid, int64_t keep, int all);
int agg_additive(const struct mt_agg *a);
int agg_set_base(struct mt_consumer *c, struct agg_ent *e);

/* agg.c helpers */
const struct mt_agg *agg_of(const struct mt_consumer *c, uint32_t aggid);
const struct mt_agg_info *info_of(const struct mt_consumer *c, uint32_t aggid);
uint32_t keybytes(const struct mt_consumer *c, uint32_t aggid);
uint64_t hash_key(uint32_t aggid, const uint8_t *key, uint32_t n);

/* aggsort.c */
struct sortctx {
	struct mt_consumer *c;
	int keypos;
	int keysort;
	int naggs;			/* values per bundle */
	int sortpos;
};

/* A printa() row: one key and the values of each listed aggregation. */
struct bundle {
	const struct agg_ent *rep;	/* supplies the key */
	const struct agg_ent **ent;	/* [naggs], NULL = no entry (zero) */
};
struct bundle *make_bundles(struct mt_consumer *c, const uint32_t *aggids,
			    int n, size_t *nbp);
void free_bundles(struct bundle *b, size_t nb);
int bundlecmp(const void *lp, const void *rp, void *arg);
/* aggprint.c: one printa() row as text (fmt NULL: the default layout) */
void agg_print_row(struct mt_consumer *c, FILE *fp, const char *fmt,
		   const struct bundle *b, const uint32_t *aggids, int n);

/* image.c */
const char *img_str(const struct mt_consumer *c, uint32_t off);
const struct mt_probe *probe_of_epid(const struct mt_consumer *c,
				     uint32_t epid, const struct mt_ecb **ecbp);

/* datum.c */
int64_t datum_int(const uint8_t *p, uint32_t size, int sign);
/* user: the record is a ustack(): the pid, then user pcs */
void datum_stack(struct mt_consumer *c, FILE *fp, int user, const uint8_t *p,
		 uint32_t size);
void datum_trace(struct mt_consumer *c, FILE *fp, const struct mt_rec *r,
		 const struct mt_rec_info *ri, const uint8_t *d);
void print_key_datum(struct mt_consumer *c, FILE *fp,
		     const struct mt_rec_info *ri, const uint8_t *data);

/* ptype.c: print() by program.h's mt_rec_info.tdesc (ptr: the pointer's
   record, NULL for a value) */
void print_tdesc(FILE *fp, const char *tdesc, const uint8_t *ptr,
		 const uint8_t *data, uint32_t have);

/* datum.c: sym(), mod(), usym(), umod(), uaddr() values as text */
void sym_text(struct mt_consumer *c, const struct mt_rec_info *ri,
	      const uint8_t *d, char *buf, size_t len);

/* jsonout.c, for jsonagg.c: one {key: value} object of the current list */
void js_int(struct mt_consumer *c, const char *key, int64_t v);
void js_bytes(struct mt_consumer *c, const uint8_t *p, size_t n);
void js_string(struct mt_consumer *c, const uint8_t *d, size_t n);
void js_stack(struct mt_consumer *c, int user, const uint8_t *p,
	      uint32_t size);
void js_sym(struct mt_consumer *c, const struct mt_rec_info *ri,
	    const uint8_t *d);
int js_symkind(uint16_t kind);
/* jsonagg.c: one printa() object (returns its rows), printa() */
size_t js_agg_object(struct mt_consumer *c, const char *fmt,
		     const uint32_t *aggids, int n);
void js_printa(struct mt_consumer *c, const char *fmt, const uint32_t *aggids,
	       int n);

/* actions.c: run action ai of a record of probe p */
void do_action(struct mt_consumer *c, uint32_t epid, const struct mt_probe *p,
	       uint32_t ai, const uint8_t *data);

#endif
