/*
 * ======================================================================
 *  PROBE-CONTEXT BOUNDARY
 *
 *  Every .c file directly in runtime/ runs in probe context: inside a
 *  kernel trap, interrupt or instrumented function, or (local target)
 *  inside the machtrace process.  This code is freestanding C: no libc, no malloc,
 *  no printf, no locks, no blocking, no floating point.  The only outside
 *  symbols it may use are the mt_plat_* hooks (machtrace/runtime.h); the
 *  build checks this with nm (runtime.mk, rt-nmcheck).  Code in
 *  targets/local/ (the local target's host) is ordinary host code and is
 *  NOT probe context.
 * ======================================================================
 *
 * Private layout of the state area.  The area is laid out once by
 * mt_rt_init (state.c); every offset below is fixed for the session:
 *
 *   mt_cb | mt_cpubuf[ncpus] | mt_cpustat[ncpus] | mt_aggbuf[ncpus] |
 *   struct rt | struct rt_cpu[ncpus] | varslots[3][nslots] | image copy |
 *   globals | dynvar (hash heads + chunks) | thread-local rows |
 *   rt_spec[nspec] |
 *   per CPU: principal data, agg data + agg hash heads + keyless
 *            entries + probe-named entries, scratch,
 *            clause locals, staging record, dynvar epochs |
 *   per spec per CPU: speculation data
 *
 * The host reads only the mt_cb, mt_cpubuf, mt_cpustat, mt_aggbuf and the
 * buffers they point to (by offset).  struct rt and below are the runtime's
 * own and hold pointers valid in the runtime's address space.
 */
#ifndef MT_RUNTIME_RT_H
#define MT_RUNTIME_RT_H

#include <stddef.h>
#include <stdint.h>
#include "machtrace/abi.h"
#include "machtrace/runtime.h"

#define RT_ALIGN(x, a)		(((x) + (a) - 1) & ~(uint64_t)((a) - 1))
#define RT_HDRSIZE		((uint32_t)sizeof(struct mt_rechdr))
#define RT_ERRRECSIZE		(RT_HDRSIZE + (uint32_t)sizeof(struct mt_errrec))
#define RT_NOSLOT		0xffffffffu
#define RT_JIT_STR		64	/* bytes of the execname compiled code reads */

/*
 * Where a user variable lives (per scope, indexed by id - MT_VAR_USER).
 * A by-reference global or clause-local holds its value and then an
 * 8-byte NULL flag at off + RT_ALIGN(size, 8): `s = NULL` makes the
 * variable load as 0 (NULL) instead of the address of its storage.
 */
struct rt_varslot {
	uint32_t var;			/* index into vars[], RT_NOSLOT if none */
	uint32_t off;			/* globals/locals: offset in storage */
	uint32_t size;
	uint32_t flags;			/* MT_VF_* */
	uint8_t kind;			/* MT_VK_* */
	uint8_t tls;			/* 1: a scalar thread-local, in
					   column `off` of the rows (tls.c) */
	uint8_t pad[2];
	uint32_t keysize;
};

/*
 * Dynamic variable chunk header; key bytes then value follow.  next is
 * the hash chain (RT_DV_MARK: deleted, and frozen so), link the free,
 * dirty and rinsing lists (dynvar.c), so that a CPU walking a chain
 * through a chunk deleted meanwhile never strays into a list.
 */
#define RT_DV_MARK		0x80000000u
struct rt_dvar {
	uint32_t next;			/* chunk index + 1 in chain, | RT_DV_MARK */
	uint32_t hash;
	uint32_t keylen;
	uint32_t link;			/* chunk index + 1 in a CPU's list */
};

enum { RT_SPEC_FREE = 0, RT_SPEC_ACTIVE = 1, RT_SPEC_CLOSING = 2 };
enum { RT_PART_OPEN = 0, RT_PART_WRITING = 1, RT_PART_SHUT = 2 };

/* One CPU's part of a speculation: its state (RT_PART_*) and the used
   bytes of its data buffer (buf.c). */
struct rt_specpart {
	uint32_t state;
	uint32_t pad;
	uint64_t used;
};

/* One speculation (RT_SPEC_*, changed by compare-and-swap), per CPU. */
struct rt_spec {
	uint32_t state;
	uint32_t pad;
	struct rt_specpart part[];	/* [ncpus] */
};

/* An aggregation entry whose key is the probe's names alone
   (@[probefunc]), per ECB: action (index + 1) and entry (offset + 1; 0:
   the action's key is not probe-named). */
struct rt_ecbent {
	uint32_t act;
	uint32_t off;
};

/*
 * Per-CPU runtime state; touched only by its own CPU in probe context,
 * but for epoch (read by the others) and dyn_free (another CPU may take
 * the whole list, dynvar.c).
 */
struct rt_cpu {
	uint32_t busy;			/* a firing is in progress (no nesting) */
	uint32_t in_error;		/* running ERROR clauses */
	uint64_t epoch;			/* several CPUs: odd while firing */
	uint32_t dyn_free;		/* dynamic variable chunks (dynvar.c) */
	uint32_t dyn_dirty;
	uint32_t dyn_rinse;
	uint32_t dyn_pad;
	uint64_t *dyn_snap;		/* [ncpus]: epochs when rinse was filled */
	uint64_t rand;			/* rand() state */
	uint8_t *buf;			/* principal buffer data */
	uint8_t *aggdata;
	uint32_t *agghash;
	uint32_t *aggent;		/* [naggs]: a keyless aggregation's
					   entry, offset + 1 in aggdata (0: not
					   yet, or moved by a truncation) */
	struct rt_ecbent *ecbent;	/* [necbs]; reset by a truncation */
	uint8_t *scratch;		/* scratch base */
	uint8_t *locals;		/* clause-local storage */
	uint8_t *stage;			/* record being built */
	uint64_t strtok;		/* strtok() continuation address */
	uint64_t strtok_end;
	/* compiled code's (jitrt.c): the execname it reads, a helper's
	   fault until reported, and the scratch MT_JH_SUBR's strings hold
	   until MT_JH_STR/MT_JH_AGGVALS (or a fault's report) consume them */
	char jit_str[RT_JIT_STR];
	uint32_t jit_fault;
	uint32_t jit_pad;
	uint64_t jit_fault_addr;
	uint64_t jit_mark;
};

/*
 * Per-thread stamps (mt_rt_stamp, MT_ARGMAP_ELAPSED): open addressing
 * over RT_NSTAMPS slots keyed by thread, probing RT_STAMP_PROBE slots
 * from the thread's hash.  A slot is claimed by compare-and-swap of its
 * key from 0, so two CPUs never share one; a consumed slot is released
 * (key 0) after its time is cleared.
 */
#define RT_NSTAMPS		256
#define RT_STAMP_PROBE		8
struct rt_stamp {
	uint64_t thread;		/* 0: free */
	uint64_t t0;			/* mt_plat_time() at the stamp */
};

/*
 * The runtime's private state.  Every field is set by mt_rt_init and only
 * read afterwards, except the dynamic-variable hash (probe context, any
 * CPU, by compare-and-swap: dynvar.c).
 */
struct rt {
	uint64_t area_size;
	uint8_t *base;			/* == the control block */
	const struct mt_image *img;
	struct mt_image_tabs t;		/* img's tables */
	struct mt_cpubuf *cpubuf;
	struct mt_cpustat *cpustat;
	struct mt_aggbuf *aggbuf;
	struct rt_cpu *cpu;
	struct rt_varslot *slots[3];	/* per scope */
	uint32_t nslots[3];
	uint32_t ncpus;
	uint32_t strsize;
	uint8_t *globals;
	uint32_t globals_size, locals_size;
	uint64_t scratchsize;		/* per CPU: alloca + string results */
	uint64_t alloca_limit;		/* the user's scratchsize (alloca) */
	uint32_t stagesize;
	uint32_t end_reserve;		/* FILL: bytes kept for END records */
	uint32_t error_probe;		/* probes[] index + 1, 0 if none */
	/* dynamic variables */
	uint8_t *dyn;			/* chunks */
	uint32_t *dynhash;
	uint32_t dyn_nbuckets, dyn_nchunks;
	uint32_t dyn_chunksize, dyn_keycap;
	/* scalar thread-locals (tls.c) */
	uint8_t *tls;			/* rows: tls_nrows x tls_stride */
	uint32_t tls_nrows;		/* 0 or a power of two */
	uint32_t tls_ncols;
	uint32_t tls_stride;		/* 8 * (1 + tls_ncols) */
	/* speculations */
	uint8_t *specs;			/* struct rt_spec, stride spec_stride */
	uint32_t spec_stride;
	uint32_t nspec;
	uint8_t *specdata;		/* [nspec][ncpus] x specsize */
	uint64_t specsize;
	struct rt_stamp stamps[RT_NSTAMPS];	/* probe context */
};

/* Tuple stack entry. */
struct rt_tuple {
	uint64_t val;
	uint64_t size;
	uint32_t type;			/* MT_TT_* */
};

/* Machine state for one ECB firing. */
struct rt_mstate {
	struct rt *rt;
	struct rt_cpu *c;
	struct mt_cpustat *stat;
	const struct mt_pctx *ctx;
	uint32_t cpu;
	uint32_t probe;			/* probes[] index */
	uint32_t epid;
	uint64_t ts;			/* valid if have_ts (rt_ts) */
	int have_ts;
	uint64_t tid;
	int have_tid;
	uint64_t scratch_used;
	uint64_t alloca_used;
	/* fault state */
	uint32_t fault;
	uint32_t fault_pc;
	uint64_t fault_addr;
	/* an aggregation's values compiled code computed (MT_JH_AGGVALS):
	   rec i's value at given[i] instead of its DIFO's; given_plat bit
	   i: that string is the platform's execname (MT_JIT_PLATNAME
	   readable bytes) */
	const uint64_t *given;
	uint32_t given_plat;
	/* tuple stack */
	uint32_t ttop;
	struct rt_tuple tuple[MT_TUPLE_MAX];
};

/* struct rt follows the per-CPU aggbufs (see state.c). */
static inline struct rt *rt_get(struct mt_cb *cb)
{
	return (struct rt *)((uint8_t *)cb + RT_ALIGN(cb->aggbuf_off +
		(uint64_t)cb->ncpus * sizeof(struct mt_aggbuf), 64));
}

/*
 * Several CPUs: a firing runs between rt_epoch_enter and rt_epoch_exit, so
 * that a CPU reusing a deleted dynamic variable knows when no other CPU
 * can still be reading it (dynvar.c).  The enter is a full barrier: this
 * CPU's epoch is odd before it loads any chain link.
 */
static inline void rt_epoch_enter(struct rt_cpu *c)
{
	__atomic_fetch_add(&c->epoch, 1, __ATOMIC_SEQ_CST);
}

static inline void rt_epoch_exit(struct rt_cpu *c)
{
	__atomic_store_n(&c->epoch, c->epoch + 1, __ATOMIC_RELEASE);
}

/* The current thread's tid, taken on first use (once per firing). */
static inline uint64_t rt_tid(struct rt_mstate *ms)
{
	if (!ms->have_tid) {
		ms->tid = mt_plat_var(ms->ctx, MT_VAR_TID);
		ms->have_tid = 1;
	}
	return ms->tid;
}

/* The firing's timestamp, taken on first use (once per firing). */
static inline uint64_t rt_ts(struct rt_mstate *ms)
{
	if (!ms->have_ts) {
		ms->ts = mt_plat_time();
		ms->have_ts = 1;
	}
	return ms->ts;
}

/*
 * Memory helpers, inline: plain loops (the build's -fno-builtin
 * -fno-tree-loop-distribute-patterns keeps them from becoming libc calls),
 * a word at a time whatever the alignment (x86-64 loads and stores
 * unaligned words; rt_u64u tells the compiler so).
 */
typedef uint64_t rt_u64u __attribute__((aligned(1), may_alias));

/* Forward: an overlapping copy to a lower address is safe when the
   two are at least 8 bytes apart. */
static inline void rt_memcpy(void *dst, const void *src, uint64_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	uint64_t i = 0;

	for (; i + 8 <= n; i += 8)
		*(rt_u64u *)(d + i) = *(const rt_u64u *)(s + i);
	for (; i < n; i++)
		d[i] = s[i];
}

static inline void rt_memset(void *dst, int c, uint64_t n)
{
	uint8_t *d = dst;
	uint64_t i = 0, w = (uint8_t)c * 0x0101010101010101ull;

	for (; i + 8 <= n; i += 8)
		*(rt_u64u *)(d + i) = w;
	for (; i < n; i++)
		d[i] = (uint8_t)c;
}

static inline int rt_memcmp(const void *a, const void *b, uint64_t n)
{
	const uint8_t *x = a, *y = b;
	uint64_t i = 0;

	for (; i + 8 <= n; i += 8)
		if (*(const rt_u64u *)(x + i) != *(const rt_u64u *)(y + i))
			break;
	for (; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* Multiplicative hash, a word at a time for 8-aligned keys (all keys the
   runtime builds are), FNV-1a bytewise otherwise. */
static inline uint32_t rt_hash(const void *p, uint64_t n, uint32_t h)
{
	const uint8_t *s = p;
	uint64_t x = h ? h : 0x9e3779b97f4a7c15ull;

	if (((uintptr_t)p | n) % 8 == 0) {
		const uint64_t *w = p;
		for (uint64_t i = 0; i < n / 8; i++) {
			x ^= w[i];
			x *= 0xff51afd7ed558ccdull;
			x ^= x >> 32;
		}
		return (uint32_t)(x ^ (x >> 29));
	}
	h = 2166136261u ^ (uint32_t)x;
	for (uint64_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 16777619u;
	}
	return h;
}

/* lib.c */
struct rt_err { char *buf; uint32_t len, pos; };
void rt_err_str(struct rt_err *e, const char *s);
void rt_err_num(struct rt_err *e, uint64_t v);

/* state.c */
const struct rt_varslot *rt_slot(struct rt *rt, uint32_t scope, uint32_t id);

/* load.c: safe loads */
int rt_check_load(struct rt_mstate *ms, uint64_t addr, uint64_t size);
int rt_check_store(struct rt_mstate *ms, uint64_t addr, uint64_t size,
		   int align);
int rt_copy_in(struct rt_mstate *ms, void *dst, uint64_t src, uint64_t n);
/* copyin()'s reads: the current task's user memory (mt_plat_ucopy), else
   as rt_copy_in; a string stops at its NUL, dst[n] zeroed beforehand. */
int rt_copy_user(struct rt_mstate *ms, void *dst, uint64_t src, uint64_t n);
int rt_copy_ustr(struct rt_mstate *ms, char *dst, uint64_t src, uint64_t n);
/* A stack record or key (rec->kind MT_REC_STACK) at p: kernel pcs, or the
   pid and user pcs (MT_RF_UPID), zero-padded. */
void rt_rec_stack(struct rt_mstate *ms, const struct mt_rec *rec, uint8_t *p);
int64_t rt_strlen(struct rt_mstate *ms, uint64_t addr, uint64_t max);
/* The string and its NUL only (at most size - 1 bytes): dst is zeroed
   already (a record in the staging area); 0, or -1 on fault. */
int rt_copy_str0(struct rt_mstate *ms, char *dst, uint64_t src, uint64_t size);
/*
 * Assign a string to a variable's storage dst[size], which holds a string
 * and zeroes after it (made zeroed, written only here or cleared whole):
 * the new string, its NUL, and zeroes only as far as the old string
 * reached; 0, or -1 on fault (dst unchanged).  A short string costs its
 * length and the old one's, not size.
 */
int rt_copy_str_over(struct rt_mstate *ms, char *dst, uint64_t src,
		     uint64_t size);
void rt_fault(struct rt_mstate *ms, uint32_t fault, uint64_t addr);
uint64_t rt_alloc(struct rt_mstate *ms, uint64_t size);
uint64_t rt_alloc_raw(struct rt_mstate *ms, uint64_t size);
uint64_t rt_alloca(struct rt_mstate *ms, uint64_t size);

/* interp.c */
int rt_exec(struct rt_mstate *ms, uint32_t difo1, uint64_t *result);
uint64_t rt_tls_load(struct rt_mstate *ms, uint32_t id);
void rt_tls_store(struct rt_mstate *ms, uint32_t id, uint64_t v);

/* subr.c, subr_str.c */
void rt_subr(struct rt_mstate *ms, uint32_t subr, uint64_t *rd);
/* A dynamic variable (thread-local or associative array) keyed by the
   tuple stack: its value, or v stored (0: deleted). */
/* ns since the current thread's stamp (mt_rt_stamp), consumed; 0 if none */
uint64_t rt_stamp_elapsed(struct rt *rt, const struct mt_pctx *ctx);
uint64_t rt_dyn_load(struct rt_mstate *ms, uint32_t scope, uint32_t id, int tls);
void rt_dyn_store(struct rt_mstate *ms, uint32_t scope, uint32_t id, int tls, uint64_t v);
int64_t rt_sarg(struct rt_mstate *ms, uint32_t i, const char **s);
uint64_t rt_strjoin(struct rt_mstate *ms);
uint64_t rt_substr(struct rt_mstate *ms);
uint64_t rt_strsearch(struct rt_mstate *ms, uint32_t subr);
uint64_t rt_strchr(struct rt_mstate *ms, int last);
uint64_t rt_strtok(struct rt_mstate *ms);
uint64_t rt_lltostr(struct rt_mstate *ms);
uint64_t rt_pathname(struct rt_mstate *ms, uint32_t subr);
uint64_t rt_cleanpath(struct rt_mstate *ms);
uint64_t rt_casemap(struct rt_mstate *ms, int upper);
uint64_t rt_strtoll(struct rt_mstate *ms);
uint64_t rt_strcmp(struct rt_mstate *ms);

/* msgid.c */
int rt_msgid_name(const struct mt_image *img, int64_t id, int subsystem,
		  char *out, uint32_t size);
uint64_t rt_msgname(struct rt_mstate *ms, int64_t id, int subsystem);

/* Copy the string at src into dst: at most size - 1 bytes and the NUL,
   then zeroes to the next 8-byte boundary (not to size); the bytes
   written (8-aligned), -1 on fault. */
int64_t rt_copy_strw(struct rt_mstate *ms, char *dst, uint64_t src, uint64_t size);

/* dynvar.c */
/* The key of a dynamic variable: in scratch for an associative array,
   else (at most 16 bytes) in small. */
uint8_t *rt_key(struct rt_mstate *ms, const struct rt_varslot *sl,
		uint32_t scope, uint32_t id, int tls, uint32_t *keylen,
		uint64_t small[2]);
uint8_t *rt_dvar_get(struct rt_mstate *ms, const uint8_t *key,
		     uint32_t keylen, int alloc);
void rt_dvar_del(struct rt_mstate *ms, const uint8_t *key, uint32_t keylen);
void rt_dyn_init(struct rt *rt);

/*
 * tls.c: scalar thread-locals (self->x of an integer or pointer type) in
 * a row per thread, instead of a dynamic variable each.
 *
 * A row is { u64 thread; int64 values[tls_ncols] }; the table holds
 * tls_nrows rows (a power of two) and a thread's row is one of the
 * MT_TLS_PROBE rows from mt_tls_hash(thread) (abi.h), wrapping.  The
 * key is the `tid` built-in's value (mt_plat_var MT_VAR_TID), as the
 * dynamic variables' is; thread 0 is stored as RT_TLS_THREAD0 since 0
 * marks a free row.  Columns are the image's scalar thread-locals in
 * vars[] order (abi.h, mt_tls_column).
 *
 * Storing 0 is dtrace's delete: the value becomes 0 and a row whose
 * values are all 0 may be taken by another thread (a later load of the
 * first thread finds no row and gives 0).  A thread needs a new row only
 * for a non-zero store (create): when none of its MT_TLS_PROBE rows is
 * free or all 0, that is a dynamic variable drop (mt_cpustat.dynvar_drops),
 * as a full dynamic variable space is.  Rows are never moved; free rows
 * hold only zeroes.  With several CPUs a row is taken by compare-and-swap
 * and written only by its thread (tls.c); dynvar.c's variables still
 * assume one writer.
 *
 * Sizing (state.c): dynvarsize is shared with the dynamic variables in
 * proportion to the number of variables: the rows get dynvarsize *
 * ncols / (ncols + n), n the other variables in dynamic variable space
 * (associative arrays, by-reference thread-locals), the chunks the rest;
 * the rows' share buys share / tls_stride rows, rounded down to a power
 * of two within [RT_TLS_MINROWS, RT_TLS_MAXROWS].
 *
 * For generated code: rt_tls_row(rt, tid, create) is the thread's row
 * values (index them by column), NULL if it has none and !create, or if
 * a row was needed and none was left (the drop counted on mt_plat_cpu()'s
 * statistics); a store of 0 passes create = 0 and writes only through a
 * row it found.  It keeps no state beyond the table.
 */
#define RT_TLS_MINROWS		16
#define RT_TLS_MAXROWS		(1u << 16)
#define RT_TLS_THREAD0		(1ull << 63)
int64_t *rt_tls_row(struct rt *rt, uint64_t thread, int create);
/* After its thread stored 0 in row vals (rt_tls_row's): with several
   CPUs, the row is given back when all its values are 0 (tls.c). */
void rt_tls_release(struct rt *rt, int64_t *vals);
/* The value of the scalar thread-local of slot sl (sl->tls) for the
   firing's thread; NULL as rt_tls_row (the drop counted on ms->stat). */
int64_t *rt_tls_ref(struct rt_mstate *ms, const struct rt_varslot *sl,
		    int create);
/* agg.c */
void rt_aggregate(struct rt_mstate *ms, const struct mt_action *act);
/*
 * For generated code: the values of keyless aggregation aggid (1-based,
 * nkeys 0) on cpu, its entry made on first use (min/max set to their
 * identities) and then kept per CPU until a truncation; NULL when the
 * aggregation buffer is full (an aggregation drop, counted).  The caller
 * updates them: count vals[0] += 1, sum vals[0] += v, min/max compare
 * vals[0], avg vals[0] += 1 and vals[1] += v; or rt_agg_update for any
 * function (quantize/lquantize/llquantize buckets, stddev), incr being
 * the quantizes' increment (1 if none).
 */
int64_t *rt_agg_keyless(struct rt *rt, uint32_t cpu, uint32_t aggid);
void rt_agg_update(struct rt *rt, uint32_t aggid, int64_t *vals, int64_t v,
		   int64_t incr);
void rt_agg_init(struct rt *rt, uint32_t cpu);
uint32_t rt_agg_entry(struct rt_mstate *ms, const struct mt_action *act);
uint32_t rt_agg_entry_given(struct rt_mstate *ms, const struct mt_action *act);
void rt_agg_update_entry(struct rt_mstate *ms, const struct mt_action *act, uint32_t off1);
uint32_t rt_agg_entry_str(struct rt_mstate *ms, const struct mt_action *act, uint64_t str,
			  uint32_t known);

/* probe.c: a fault of action `action` (-1: the predicate) reported as a
   firing's: the error record, then dtrace:::ERROR */
void rt_report_fault(struct rt_mstate *ms, uint32_t action);

/* buf.c */
int rt_buf_put(struct rt *rt, uint32_t cpu, const void *rec, uint32_t len,
	       int is_end);
int rt_spec_put(struct rt_mstate *ms, uint32_t id, const void *rec,
		uint32_t len);
uint64_t rt_speculation(struct rt_mstate *ms);
int rt_spec_active(struct rt *rt, uint64_t id);
void rt_spec_commit(struct rt_mstate *ms, uint32_t id, int discard);

#endif /* MT_RUNTIME_RT_H */
