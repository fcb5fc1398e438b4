/*
 * The consumer: reads what the runtime produced (principal buffers, error
 * records, aggregation buffers, drop counters; see abi.h) and prints it the
 * way dtrace(1) does.  Host code only; a library: it returns errors and
 * never exits.
 *
 * Typical session (the CLI):
 *
 *   c = mt_consumer_new(prog, img, &opts, target, stdout, stderr);
 *   target->ops->attach(...); mt_consumer_attach(c, target->ops->cb(t));
 *   begin; loop { poll; mt_consume(c); mt_consume_drops(c); }
 *   end; mt_consume(c); mt_consume_drops_final(c); mt_consume_final(c);
 *   status = mt_consumer_status(c);
 */
#ifndef MACHTRACE_CONSUMER_H
#define MACHTRACE_CONSUMER_H

#include <stdint.h>
#include <stdio.h>
#include "machtrace/abi.h"
#include "machtrace/program.h"
#include "machtrace/options.h"

struct mt_consumer;

/*
 * prog and img must outlive the consumer; opts is shared with the caller
 * (setopt() changes it: quiet, aggsort*, ...).  target may be NULL (unit
 * tests): clear()/trunc() then only affect the consumer's snapshot.
 */
struct mt_consumer *mt_consumer_new(const struct mt_prog *prog,
				    const struct mt_image *img,
				    struct mt_opts *opts,
				    struct mt_target *target,
				    FILE *out, FILE *err);
void mt_consumer_free(struct mt_consumer *c);

/* The runtime's control block, as the host sees it. */
void mt_consumer_attach(struct mt_consumer *c, struct mt_cb *cb);

/*
 * Drain every CPU's principal buffer and print its records (ring buffers
 * only once the control block says MT_CB_STOPPED).  Aggregations are
 * snapshot from the runtime's buffers when a record first needs them
 * (printa, clear, trunc) and at the end.  After an exit() record only
 * END's records are printed, as dtrace's draining state does.  Returns 0,
 * or -1 with a message in mt_consumer_error().
 */
int mt_consume(struct mt_consumer *c);

/* Report drops counted since the last call, on err: buffer drops at
   once, dynamic variable and speculation drops when dtrace would check
   its status (the first call, then once per statusrate); the _final
   variant, when tracing has stopped, reports them all. */
void mt_consume_drops(struct mt_consumer *c);
void mt_consume_drops_final(struct mt_consumer *c);

/* At the end: the final newline and every aggregation not yet printed. */
int mt_consume_final(struct mt_consumer *c);

/* 1 once an exit() record was consumed; its status. */
int mt_consumer_exited(const struct mt_consumer *c);
int mt_consumer_status(const struct mt_consumer *c);
/* 1 once tracing should stop: exit() or a full buffer (fill policy). */
int mt_consumer_done(const struct mt_consumer *c);

const char *mt_consumer_error(const struct mt_consumer *c);

/*
 * Kernel symbols for stack(), sym(), mod(), %a and %k: fn fills the module
 * and function containing addr and the offset into it (func NULL: only
 * the module is known) and returns 0, or -1 when addr is unknown.  Each
 * consumer has its own source: the target's ops->sym when it has one
 * (mt_consumer_new), else the fn set here; neither: addresses print in hex.
 */
typedef int (*mt_symfn)(void *arg, uint64_t addr, const char **mod,
			const char **func, uint64_t *off);
struct mt_symsrc {
	struct mt_target *target;	/* its ops->sym first, if any */
	mt_symfn fn;
	void *arg;
};
void mt_consumer_set_symbols(struct mt_consumer *c, mt_symfn fn, void *arg);

#define MT_SYM_PC	0		/* "mod`func+0x10" */
#define MT_SYM_FUNC	1		/* "mod`func" */
#define MT_SYM_MOD	2		/* "mod" */
/* src NULL: hex */
void mt_sym_format(const struct mt_symsrc *src, uint64_t pc, int style,
		   char *buf, size_t len);
/* A user pc of task pid (ustack(), usym(), umod(), uaddr(), %A): the
   target's ops->usym, else hex ("0x..."), in the same styles. */
void mt_usym_format(const struct mt_symsrc *src, int64_t pid, uint64_t pc,
		    int style, char *buf, size_t len);
/* The frames of a stack() / ustack() record (ustack's starts with the
   pid; a 0 pc ends either), leaf first, each as MT_SYM_PC text passed to
   fn; returns how many. */
uint32_t mt_stack_frames(const struct mt_symsrc *src, int user, const uint8_t *p,
			 uint32_t size, void (*fn)(void *arg, const char *sym),
			 void *arg);
/* pc's offset in its function; -1 when no function is known. */
int mt_sym_offset(const struct mt_symsrc *src, uint64_t pc, uint64_t *off);
/* The same for a user pc of task pid (the target's ops->usym). */
int mt_usym_offset(const struct mt_symsrc *src, int64_t pid, uint64_t pc,
		   uint64_t *off);

/*
 * Recording (machtrace record): each record of a clause goes to fn instead
 * of being printed; fn gets its header, probe, clause index and data (the
 * clause's recs at their offsets).  The actions that print a record's
 * data (trace, printf, stack, ...) are then not run; the others are
 * (exit, clear, trunc, printa, setopt, ...), so the session behaves as it
 * would printing.
 */
typedef void (*mt_rechook)(void *arg, const struct mt_rechdr *h,
			   const struct mt_probe *p, uint32_t clause,
			   const uint8_t *data);
void mt_consumer_set_rechook(struct mt_consumer *c, mt_rechook fn, void *arg);
/* A record's integer rec r (sign-extended; a rechook's data). */
int64_t mt_rec_int(const struct mt_rec *r, const uint8_t *data);
/* A printf()-like action's text for a record's data (malloc'ed), or NULL. */
char *mt_consumer_format(struct mt_consumer *c, uint32_t action,
			 const uint8_t *data);
/* The consumer's symbol source (for a hook formatting stacks). */
const struct mt_symsrc *mt_consumer_symsrc(const struct mt_consumer *c);

/*
 * The entries of aggregation @name (without '@') as values: for each, fn
 * gets the key elements (a string key's s, else its 64-bit value in i;
 * at most MT_AGGWALK_MAXKEYS) and the raw values (nvals of agg, as the
 * runtime keeps them: count's count, sum's sum, avg's count then sum,
 * the quantizes' buckets).  Values are those since tracing began (the
 * walk ignores clear()).  fn returns non-zero to stop.  -1 (message in
 * mt_consumer_error) when there is no such aggregation.
 */
#define MT_AGGWALK_MAXKEYS	8
struct mt_aggkey {
	const char *s;			/* a string key, else NULL */
	uint32_t len;			/* the key's bytes at raw (a string's
					   NUL-padded, maybe unterminated) */
	int64_t i;			/* any other key: its first 8 bytes */
	const uint8_t *raw;		/* the key as recorded (a stack()'s or
					   ustack()'s: mt_stack_frames) */
};
typedef int (*mt_aggwalk_fn)(void *arg, const struct mt_agg *agg,
			     const struct mt_aggkey *keys, uint32_t nkeys,
			     const int64_t *vals);
int mt_consumer_agg_walk(struct mt_consumer *c, const char *name,
			 mt_aggwalk_fn fn, void *arg);

/* ------------------------------------------------------------------------
 * Lower-level pieces, exposed for the unit tests.
 * ------------------------------------------------------------------------ */

/* One printf()/printa() argument. */
struct mt_pfarg {
	uint16_t kind;			/* MT_TI_* */
	uint32_t size;			/* bytes of data */
	const void *data;		/* the recorded bytes */
	/* printa '@' value: an aggregation entry to print (NULL otherwise) */
	const struct mt_agg *agg;
	const int64_t *aggvals;
	uint64_t normal;
};

/*
 * dtrace's printf: format fmt with args into fp, addresses (%a, %k)
 * through syms.  Returns the number of arguments consumed, or -1 (message
 * in errbuf).
 */
int mt_printf(FILE *fp, const struct mt_symsrc *syms, const char *fmt,
	      const struct mt_pfarg *args, int nargs, char *errbuf,
	      size_t errlen);

/* dtrace's distribution tables (leading blank line included). */
void mt_print_quantize(FILE *fp, const int64_t *buckets, uint64_t normal);
void mt_print_lquantize(FILE *fp, const int64_t *buckets,
			const struct mt_agg *agg, uint64_t normal);
void mt_print_llquantize(FILE *fp, const int64_t *buckets,
			 const struct mt_agg *agg, uint64_t normal);
/* An aggregation value as printa()/the exit printout shows it. */
void mt_print_aggval(FILE *fp, const struct mt_agg *agg, const int64_t *vals,
		     uint64_t normal);
/* tracemem()/rawbytes hex dump. */
void mt_print_rawbytes(FILE *fp, const void *addr, size_t n);
uint64_t mt_stddev(const int64_t *vals, uint64_t normal);

/*
 * The rows of a quantize(), lquantize() or llquantize() value as dtrace's
 * table shows them (the same range, zero rows at the edges included):
 * label ("16", "< 0", ">= 100", ...) and count (normalized).
 */
typedef void (*mt_dist_rowfn)(void *arg, const char *label, int64_t count);
void mt_dist_rows(const struct mt_agg *agg, const int64_t *vals,
		  uint64_t normal, mt_dist_rowfn fn, void *arg);

#endif /* MACHTRACE_CONSUMER_H */
