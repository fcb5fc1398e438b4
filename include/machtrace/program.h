/*
 * A compiled D program on the host side.
 *
 * The compiler produces a struct mt_prog: the runtime tables of an enabling
 * image (clauses, actions, recs, aggs, vars, difos, text, ints, strtab; see
 * abi.h) plus host-only descriptions the consumer needs to print records
 * (formats, types, aggregation names) and the probe descriptions of every
 * clause.  mt_link() matches the descriptions against a target's probes and
 * writes the image (adding probes[] and ecbs[]).  Host code only.
 */
#ifndef MACHTRACE_PROGRAM_H
#define MACHTRACE_PROGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "machtrace/abi.h"
#include "machtrace/options.h"

/* A probe description; empty or NULL fields match anything; globs allowed. */
struct mt_pdesc {
	char *prov, *mod, *func, *name;
	int line;			/* source line, for diagnostics */
};

/* Split "prov:mod:func:name" in place (common/pdesc.c); returns the
   number of fields, more than 4 when overspecified. */
int mt_pdesc_split(char *s, struct mt_pdesc *pd);
/* Is the '/' at p, after spec[0..n), part of a line:FILE:... module? */
int mt_pdesc_file_slash(const char *spec, size_t n, const char *p);

/* How to print a recorded value (per rec, parallel to recs[]). */
enum mt_ti_kind {
	MT_TI_INT = 1,			/* signed integer of size bytes */
	MT_TI_UINT,			/* unsigned integer (and pointers) */
	MT_TI_STR,			/* string */
	MT_TI_MEM,			/* raw bytes (structs, arrays, tracemem) */
	MT_TI_STACK,			/* kernel stack (pcs) */
	MT_TI_USTACK,
	MT_TI_SYM, MT_TI_MOD,		/* sym()/mod() of a kernel address */
	MT_TI_USYM, MT_TI_UMOD, MT_TI_UADDR,
	MT_TI_FLOAT			/* reserved */
};

struct mt_rec_info {
	uint16_t kind;			/* MT_TI_* */
	uint16_t is_ptr;		/* pointer type: trace() prints hex */
	uint32_t size;
	char *ctype;			/* C type name as D prints it (print()) */
	/*
	 * print(): the value's full type, or NULL.  Prefix notation, names
	 * in double quotes as dtrace prints them in "(type)" casts:
	 *   type   := 'i' SIZE ('s'|'u') NAME          integer, char, bool
	 *           | 'e' SIZE NAME '{' (IDENT '=' INT ',')* '}'   enum
	 *           | 'p' NAME                         pointer (8 bytes)
	 *           | 'f' SIZE NAME                    floating point
	 *           | 'a' COUNT NAME type              array of COUNT elements
	 *           | ('s'|'u') SIZE NAME '{' member* '}'   struct / union
	 *   member := '.' IDENT '@' OFFSET [':' BITOFF ':' BITS] type ';'
	 * SIZE, COUNT, OFFSET (bytes), BITOFF, BITS are decimal; e.g. the
	 * struct { int a; char b[2]; } is
	 *   s8"struct x"{.a@0i4s"int";.b@4a2"char [2]"i1s"char";}
	 */
	char *tdesc;
};

/*
 * Per action, host-only.  fmt: printf/printa/system/freopen format string
 * (NULL if none).  For PRINTA: aggids[] of the aggregations to print (the
 * recs carry nothing for them).  For SETOPT: opt_name/opt_value; one
 * that is NULL was not a string constant and is a string rec instead
 * (the name's first).
 * For NORMALIZE/DENORMALIZE/CLEAR/TRUNC: aggids[0] and the recs hold the
 * normalization factor / truncation count.
 */
struct mt_action_info {
	char *fmt;
	uint32_t naggids;
	uint32_t *aggids;
	char *opt_name, *opt_value;
	int line;
};

/* Per aggregation (aggid = index + 1). */
struct mt_agg_info {
	char *name;			/* without '@'; "" for the anonymous @ */
	uint32_t nkeys;
	struct mt_rec_info *keys;	/* how to print each key element */
};

/* Per clause. */
struct mt_clause_info {
	uint32_t npdescs;
	struct mt_pdesc *pdescs;
	int line;
	int src;			/* its source (mt_cc_input's srcs[]), -1
					   in a D library: a session names the
					   -n/-s a diagnostic or a match is of */
};

/* A pragma or -x option as written, applied in order by the CLI. */
struct mt_optset {
	char *name, *value;		/* value NULL for plain flags */
	int line;
};

/*
 * Stability attributes, numbered weakest first as in dtrace: stability
 * Internal 0 .. Standard 7, dependency class Unknown 0 .. Common 5
 * (common/provattr.c).
 */
enum { MT_STAB_INTERNAL, MT_STAB_PRIVATE, MT_STAB_OBSOLETE, MT_STAB_EXTERNAL,
       MT_STAB_UNSTABLE, MT_STAB_EVOLVING, MT_STAB_STABLE, MT_STAB_STANDARD,
       MT_STAB_N };
enum { MT_CLASS_UNKNOWN, MT_CLASS_CPU, MT_CLASS_PLATFORM, MT_CLASS_GROUP,
       MT_CLASS_ISA, MT_CLASS_COMMON, MT_CLASS_N };
extern const char *const mt_stab_names[MT_STAB_N];
extern const char *const mt_class_names[MT_CLASS_N];
struct mt_attr { uint8_t name, data, cls; };
/* "names[/data[/class]]" (dtrace_str2attr): 0, or -1 when invalid */
int mt_attr_parse(const char *s, struct mt_attr *a);

/* A provider's attributes of its provider, module, function, name, args. */
enum { MT_PA_PROV, MT_PA_MOD, MT_PA_FUNC, MT_PA_NAME, MT_PA_ARGS, MT_PA_N };
struct mt_provattr { const char *prov; struct mt_attr a[MT_PA_N]; };
/* A machtrace provider's by name ("machload12": a USDT one), or NULL */
const struct mt_provattr *mt_provattr_lookup(const char *prov);
/* Those of a provider machtrace does not describe (all Private) */
const struct mt_provattr *mt_provattr_default(void);

/* #pragma D attributes ATTR provider PROV PART, in program order. */
struct mt_pragattr {
	char *prov;
	int part;			/* MT_PA_* */
	struct mt_attr attr;
};

struct mt_prog {
	/* runtime tables (see abi.h); indices as in the image */
	struct mt_clause *clauses;	uint32_t nclauses;
	struct mt_action *actions;	uint32_t nactions;
	struct mt_rec *recs;		uint32_t nrecs;
	struct mt_agg *aggs;		uint32_t naggs;
	struct mt_var *vars;		uint32_t nvars;
	struct mt_difo *difos;		uint32_t ndifos;
	mt_instr_t *text;		uint32_t ntext;
	uint64_t *ints;			uint32_t nints;
	char *strtab;			uint32_t strtab_size;

	/* host-only, parallel to the tables above */
	struct mt_clause_info *clause_info;	/* [nclauses] */
	/*
	 * -v: the minimum stability attributes of the statements (names,
	 * data semantics, dependency class), numbered weakest first as in
	 * dtrace: stability Internal 0 .. Standard 7, class Unknown 0 ..
	 * Common 5.
	 */
	uint8_t stmt_attr[3];
	struct mt_action_info *action_info;	/* [nactions] */
	struct mt_rec_info *rec_info;		/* [nrecs] */
	struct mt_agg_info *agg_info;		/* [naggs] */
	char **var_names;			/* [nvars] for -S */

	struct mt_optset *optsets;	uint32_t noptsets; /* #pragma D option */
	struct mt_pragattr *pragattrs;	uint32_t npragattrs;
	char *source_name;		/* script path or "-n" */
	char *dump;			/* -d (MT_CC_DUMP): the sources after
					   every rewrite, as D, or NULL */
};

void mt_prog_free(struct mt_prog *prog);

/* ------------------------------------------------------------------------
 * Targets: where probes live and the runtime runs.
 * ------------------------------------------------------------------------ */
struct mt_probe_info {
	uint32_t id;
	const char *prov, *mod, *func, *name;
	uint32_t kind;			/* MT_PK_* */
	uint64_t arg;			/* e.g. tick interval in ns */
	uint8_t nmap;			/* argument mapping (struct mt_probe) */
	uint8_t argmap[MT_PROBE_MAXMAP];
};

struct mt_target;
typedef int (*mt_probe_cb)(void *arg, const struct mt_probe_info *p);

/*
 * A target, plugged in through a designated-initializer ops table.  Every
 * function returns 0 or -1 with a message in the target's error buffer
 * (mt_target_error()).  The control block and buffers live in memory the
 * host can read directly (in-process for local, shared guest RAM for mach).
 */
struct mt_ctypes;
struct mt_target_ops {
	const char *name;
	/* Call cb for each probe matching pd (creating on-demand probes such
	   as tick-N when create is set).  Returns number matched or -1. */
	int (*probes)(struct mt_target *t, const struct mt_pdesc *pd, int create,
		      mt_probe_cb cb, void *arg);
	/* Set up the runtime for this image; the image is copied. */
	int (*attach)(struct mt_target *t, const struct mt_image *img);
	/* Optional (NULL: the host's memory bounds it): the largest runtime
	   state area (mt_rt_size) attach can hold beside img's code and
	   tables, so that bufresize=auto lowers the sizes to fit. */
	uint64_t (*area_max)(struct mt_target *t, const struct mt_image *img);
	/* The control block (host view); offsets in it are from its address. */
	struct mt_cb *(*cb)(struct mt_target *t);
	int (*begin)(struct mt_target *t);	/* fire BEGIN */
	/* Let time pass: fire what is due (ticks, profile, kernel events)
	   for at most max_ns; return 1 when tracing should stop (exit(),
	   workload ended), 0 to keep going, -1 on error. */
	int (*poll)(struct mt_target *t, uint64_t max_ns);
	int (*end)(struct mt_target *t);	/* fire END, stop tracing */
	/* Aggregation clear (trunc = 0) or remove entries (trunc = 1). */
	int (*aggclear)(struct mt_target *t, uint32_t aggid, int trunc);
	void (*detach)(struct mt_target *t);	/* restore everything */
	/* Optional (NULL: none): the kernel pc's module, function and offset
	   into it (func NULL: a module's pc in no known function), the
	   names valid until free; 0, or -1 when pc is in no known module.
	   The consumer prints them as dtrace does ("module`function+0xoff"). */
	int (*sym)(struct mt_target *t, uint64_t pc, const char **mod,
		   const char **func, uint64_t *off);
	/* Optional (NULL: hex): the same for a user pc of task pid (the pid
	   ustack(), usym() ... recorded), from that program's symbols. */
	int (*usym)(struct mt_target *t, int64_t pid, uint64_t pc,
		    const char **mod, const char **func, uint64_t *off);
	/* Optional (NULL: free(priv)): free the private state, after detach. */
	void (*free)(struct mt_target *t);
	/*
	 * What a session asks a target before linking a program it runs
	 * (session.h); each optional (NULL: none).  ctypes: fill *ct with the
	 * answers to the compiler's questions (struct mt_ctypes, compiler.h:
	 * args[] and kernel globals' C types, locals), its arg the target.
	 * dlib: the D library compiled before such a program (*name names
	 * it in errors).  expand: -d's form of a description (malloc'd),
	 * NULL when it names nothing to expand.
	 */
	void (*ctypes)(struct mt_target *t, struct mt_ctypes *ct);
	const char *(*dlib)(struct mt_target *t, const char **name);
	char *(*expand)(struct mt_target *t, const struct mt_pdesc *pd);
	/* Optional (NULL: 1): the CPUs probes fire on, numbered from 0 as
	   mt_plat_cpu() numbers them; the image keeps buffers for each. */
	uint32_t (*ncpus)(struct mt_target *t);
	/*
	 * What a command asks a target of its probes and its run; each
	 * optional (NULL: none).  argname: the name of args[i] of a probe
	 * (-lv shows it after the type), NULL when it has none.  sites:
	 * -lv's lines of probe id's sites (nothing for most probes).
	 * pstate: what the target saw of -c/-p's task (lkabi.h's
	 * LK_TGT_UNSEEN, _RUNNING, _EXITED), -1 without one or before
	 * attach.  aborted: why tracing is incomplete at any time of the
	 * session (the kernel stopped in its debugger), else NULL.
	 */
	const char *(*argname)(struct mt_target *t, const char *prov,
			       const char *func, const char *name, int i);
	void (*sites)(struct mt_target *t, uint32_t id, FILE *out);
	int (*pstate)(struct mt_target *t);
	const char *(*aborted)(struct mt_target *t);
};

/*
 * A kind of target the session makes on demand (the GNU Mach kernel's:
 * live.h's mt_mach_kind), asked through these ops, not the kind's own
 * functions.  claims: does a probe description's provider (a glob; ""
 * names none) belong to it, before one exists (force: every program runs
 * there, profile, tick and BEGIN/END too)?  create: a target for o, NULL
 * with err filled.  text_check: compare the kernel text [_start, etext)
 * in a guest RAM file (offset = physical address) with the kernel image:
 * 0 identical, 1 different (*where: the first differing address, *len:
 * the text's length), -1 with err filled.
 */
struct mt_live_opts;
struct mt_target_kind {
	const char *name;
	int (*claims)(const char *prov, int force);
	struct mt_target *(*create)(const struct mt_live_opts *o, char *err,
				    size_t errlen);
	int (*text_check)(const char *ramfile, const char *kernel,
			  uint64_t *where, uint64_t *len, char *err, size_t errlen);
};

struct mt_target {
	const struct mt_target_ops *ops;
	void *priv;
	char err[512];
};

/*
 * profile provider names (common/profile.c): dtrace's default probes
 * (NULL-terminated) and "tick-N[unit]" / "profile-N[unit]" parsing into
 * MT_PK_TICK/MT_PK_PROFILE and an interval in ns (0, or -1 when the name is
 * not one or the interval is below MT_PROFILE_MIN_NS, as illumos).
 */
#define MT_PROFILE_MIN_NS	200000ull
extern const char *const mt_profile_defaults[];
int mt_profile_parse(const char *name, uint32_t *kind, uint64_t *ns);

/* The local target (runtime hosted in-process): BEGIN/END/ERROR, tick-N,
   profile-N. */
struct mt_target *mt_local_target_new(void);
/* Fire an attached local target's probe index pi with args[0..9]: its
   compiled code (0), or the interpreter (1: not compiled, MACHTRACE_NOJIT,
   or the code's guards refused the firing). */
int mt_local_fire(struct mt_target *t, uint32_t pi, const uint64_t *args);
void mt_target_free(struct mt_target *t);
const char *mt_target_error(struct mt_target *t);

/*
 * Match every clause's descriptions against the target's probes and build
 * the image with opts applied.  Returns a malloc'd image (size in ->size,
 * one ECB per matching (description, probe) pair: dtrace's "matched N
 * probes" of a source counts the ECBs of its clauses), or NULL with err
 * filled, as dtrace prints it.  bad_clause (may be NULL) receives the
 * clause whose description matched no probe ("probe description ... does
 * not match any probes", unless opts->zdefs) or which the target refused,
 * else -1: the failure is the whole program's (its size, msgids).
 */
struct mt_image *mt_link(const struct mt_prog *prog, const struct mt_opts *opts,
			 struct mt_target *t, int *bad_clause,
			 char *err, size_t errlen);

#endif /* MACHTRACE_PROGRAM_H */
