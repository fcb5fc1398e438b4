/*
 * The probe-context runtime's API (runtime/, freestanding C).
 *
 * The host (local target in targets/local/, or the GNU Mach blob's glue)
 * gives the runtime one memory area; everything the runtime keeps lives in
 * it, starting with the control block (struct mt_cb, abi.h):
 *
 *   size = mt_rt_size(img);              how many bytes the area needs
 *   mt_rt_init(area, size, img, ...)     copy + verify the image, lay out
 *                                        buffers, zero state
 *   mt_rt_probe(cb, probe_index, &ctx)   a probe fired (probe context)
 *   mt_rt_stamp(cb, &ctx)                a stamping site (probe context)
 *   mt_rt_service(cb)                    handle cb->req (aggclear/trunc)
 *   mt_rt_service_cpu(cb, cpu)           cb->req on one CPU's data
 *
 * The runtime calls nothing but the mt_plat_* hooks below, which each
 * platform (host harness, kernel glue) implements.  No function here
 * allocates, blocks, prints or takes a lock.
 *
 * Conventions the compiler and consumer rely on (beyond abi.h):
 *  - CALL takes every entry on the tuple stack as its arguments (the
 *    compiler evaluates the argument expressions first, then pushes them
 *    right before CALL, as DIF does) and leaves the stack empty.
 *    LDGAA/STGAA/LDTAA/STTAA use the whole tuple stack as the key and do
 *    not pop it (the compiler emits FLUSHTS before pushing a new key).
 *  - Aggregation keys: aggid (u32) + 4 bytes zero, then per key rec in
 *    order: INT 8 bytes (value truncated to rec.size, sign-extended if
 *    MT_RF_SIGNED), STR rec.size bytes NUL-padded, MEM rec.size bytes.
 *    Value recs (MT_RF_AGGVAL): the value, then an optional increment
 *    (quantize/lquantize/llquantize) -- all other params are in mt_agg.
 *  - LLQUANTIZE: with nvals = 2 * (hmag - lmag + 1) * (steps - steps /
 *    factor) + 3 the dtrace-utils layout (negative bins, mt_llquantize_bin);
 *    otherwise nvals = mt_llquantize_bucket(factor,low,high,nsteps,
 *    INT64_MAX) + 1, illumos' layout, bucket i = vals[i] (quantize.h).
 *  - ERROR probe arguments, as illumos: arg1 epid, arg2 action number
 *    (1-based, 0 = predicate), arg3 DIF byte offset (pc * 4), arg4 fault,
 *    arg5 address.  The mt_errrec record carries abi.h's values.
 *  - Record sizes: mt_rt_recsize() below.
 */
#ifndef MACHTRACE_RUNTIME_H
#define MACHTRACE_RUNTIME_H

#include <stdint.h>
#include "machtrace/abi.h"

/* What a probe site hands the runtime. */
#define MT_NARGS	10		/* arg0..arg9 */

struct mt_pctx {
	uint64_t arg[MT_NARGS];
	uint64_t argdata;		/* memory the args point to (loadable), */
	uint64_t argdata_size;		/* 0 if none */
	void *plat;			/* platform data (trap frame...), opaque */
};

/* Bytes of state area the image needs (0: header unusable). */
uint64_t mt_rt_size(const struct mt_image *img);

/*
 * Lay out the state area, copy img into it (img may already be at its
 * place in the area) and verify it.  Returns 0, or -1 with a reason in err.
 * The control block is at area; state becomes MT_CB_ACTIVE.
 */
int mt_rt_init(void *area, uint64_t size, const struct mt_image *img,
	       char *err, uint32_t errlen);

/* Check an image (structure and every DIFO); 0 or -1 with a reason. */
int mt_rt_verify(const struct mt_image *img, char *err, uint32_t errlen);

/* A probe fired: run its ECBs.  probe_index indexes the image's probes[].
   ctx->arg[i] is read only for i < mt_rt_probe_nargs(cb, probe_index): a
   caller may leave the others unset. */
void mt_rt_probe(struct mt_cb *cb, uint32_t probe_index,
		 const struct mt_pctx *ctx);

/* The platform's time in probe context on the current CPU since tracing
   began (ns): stored in its mt_cpustat.probe_ns, the tracer's own cost
   that top, health and record report.  The platform times its firings
   and publishes the total when it likes (GNU Mach: every clock tick). */
void mt_rt_probe_time(struct mt_cb *cb, uint64_t ns);

/* How many of a firing's raw arguments (arg0 ..) the probe's clauses can
   read: 1 + the highest argN they name, MT_NARGS with args[] or an
   argument mapping, 0 for none (or no such probe).  From the verified
   image, once per site rather than per firing. */
uint32_t mt_rt_probe_nargs(struct mt_cb *cb, uint32_t probe_index);

/* Stamp the time for the current thread (mt_plat_var CURTHREAD of ctx):
   the start of the interval a later MT_ARGMAP_ELAPSED argument of a
   firing in that thread measures (and consumes).  A fixed table, no
   allocation: a thread that finds no room evicts the oldest stamp near
   its slot. */
void mt_rt_stamp(struct mt_cb *cb, const struct mt_pctx *ctx);

/* Compiled probes (jit/, runtime/jitrt.c): the address a relocation of
   kind MT_JR_* (< MT_JR_PLAT_TSCMULT) with arg names in the copy of the
   code that runs on CPU cpu (its buffers, aggregations, staging record),
   0 if none. */
uint64_t mt_rt_jit_addr(struct mt_cb *cb, uint32_t kind, uint32_t arg, uint32_t cpu);

/* probes[] index of the probe with target id `id`, or -1. */
int mt_rt_probe_index(struct mt_cb *cb, uint32_t id);

/* The image inside the area. */
const struct mt_image *mt_rt_image(struct mt_cb *cb);

/* Handle a pending host request (cb->req) on every CPU's data;
   acknowledges with MT_REQ_NONE.  Only where no other CPU fires. */
void mt_rt_service(struct mt_cb *cb);

/* The pending request on one CPU's data, not acknowledged: a platform of
   several CPUs runs it on that CPU outside probe context (a cross-call),
   then acknowledges once every CPU has. */
void mt_rt_service_cpu(struct mt_cb *cb, uint32_t cpu);

/* Zero the values of aggid (trunc = 0) or remove its entries (trunc = 1);
   aggid 0 = every aggregation. */
void mt_rt_aggclear(struct mt_cb *cb, uint32_t aggid, int trunc);

/* Bytes of the record at the start of a buffer position holding epid
   (header included; epid 0 = padding: returns 0). */
uint32_t mt_rt_recsize(const struct mt_image *img, uint32_t epid);

/* ------------------------------------------------------------------------
 * Platform hooks: the only symbols the runtime uses that it does not
 * define.  All are called in probe context and must not block.
 * ------------------------------------------------------------------------ */
uint64_t mt_plat_time(void);		/* monotonic ns */
uint64_t mt_plat_walltime(void);	/* ns since the epoch */
uint32_t mt_plat_cpu(void);		/* current CPU, < ncpus */
/* Bytes loadable from addr (at most size) outside the runtime's own area
   and the probe's argdata; 0 if addr itself is not loadable. */
uint64_t mt_plat_loadable(const struct mt_pctx *ctx, uint64_t addr,
			  uint64_t size);
/* Integer built-ins the runtime does not know itself (pid, tid, ppid,
   uid, gid, curthread, task, ipl, errno, stackdepth, caller, ...), and
   vtimestamp: the current thread's ns on the CPU less probe context, the
   same value throughout one firing. */
uint64_t mt_plat_var(const struct mt_pctx *ctx, uint32_t var);
/* String built-ins (execname, zonename, execargs): write a NUL-terminated
   string of at most len bytes into buf. */
/*
 * Kernel objects (the mach_pid/mach_tid/mach_execname subroutines): the
 * number pid (thread = 0: addr is a task) or tid (thread = 1) gives that
 * object, -1 for none (and on targets without such objects); the name
 * execname gives the thread at addr ("" for none).
 */
int64_t mt_plat_objid(const struct mt_pctx *ctx, int thread, uint64_t addr);
void mt_plat_objname(const struct mt_pctx *ctx, uint64_t thread, char *buf,
		     uint32_t len);
void mt_plat_strvar(const struct mt_pctx *ctx, uint32_t var, char *buf,
		    uint32_t len);
/* regs[idx] (uregs = 0) / uregs[idx] (uregs = 1); *ok = 0 if idx names
   no register (illegal operation), -1 if the thread has none to read (a
   kernel thread's uregs[]: invalid address 0, as illumos). */
uint64_t mt_plat_reg(const struct mt_pctx *ctx, int uregs, uint64_t idx,
		     int *ok);
/* Up to n kernel (user = 0) or user pcs of the current stack; returns
   how many were written. */
uint32_t mt_plat_stack(const struct mt_pctx *ctx, int user, uint64_t *pcs,
		       uint32_t n);
/*
 * copyin(), copyinstr(), copyinto(): copy up to n bytes of the current
 * task's user memory at src into dst (str: stop after a NUL); returns the
 * bytes copied, fewer at the first unreadable byte.  MT_UCOPY_NOTUSER when
 * src is no user address on this platform: the runtime then reads it as
 * any other address (its safe loads).
 */
#define MT_UCOPY_NOTUSER	UINT64_MAX
uint64_t mt_plat_ucopy(const struct mt_pctx *ctx, void *dst, uint64_t src,
		       uint64_t n, int str);
/* panic() / breakpoint() (act = MT_ACT_PANIC, MT_ACT_BREAKPOINT), called
   only when destructive actions are allowed: the kernel's panic, its
   debugger.  May not return. */
void mt_plat_destructive(const struct mt_pctx *ctx, uint32_t act);

#endif /* MACHTRACE_RUNTIME_H */
