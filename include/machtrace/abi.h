/*
 * machtrace kernel/host ABI: bytecode, enabling image, records, buffers and
 * the control block.  This is the one header shared by the probe-context
 * runtime (runtime/, freestanding, also built into the GNU Mach blob) and the
 * host (compiler, consumer, targets).  It must stay freestanding: fixed-width
 * integer types only, no pointers in any shared structure (everything is an
 * offset, so the same bytes mean the same thing in the guest and the host).
 *
 * Design follows illumos DTrace (DIF, ECBs, per-CPU buffers, aggregation
 * buffers kept in probe context) unless this header says otherwise.
 *
 * Who writes each field of a shared structure, and when (as OpenBSD's
 * sys/dev/dt/dtvar.h):
 *   [L]  the compiler and the link stage (host), into the enabling image
 *        before attach; nobody writes it afterwards
 *   [I]  the runtime's setup (mt_rt_init, at INIT, before BEGIN fires);
 *        immutable afterwards
 *   [k]  the runtime in probe context (on the kernel: also its tick and
 *        command handling, which run with probes masked)
 *   [c]  the consumer, while tracing
 *   [h]  the host target (local or live), outside probe context
 * A field the runtime and the host both write says which part each owns.
 * Every shared structure's size is asserted at the end of this header: a
 * layout change must bump MT_ABI_VERSION (docs/abi-changes.md).
 */
#ifndef MACHTRACE_ABI_H
#define MACHTRACE_ABI_H

#include <stdint.h>

#define MT_ABI_VERSION		9
#define MT_IMAGE_MAGIC		0x4d54494du	/* "MTIM" */

/* ------------------------------------------------------------------------
 * Bytecode (DIF-like).
 *
 * An instruction is 32 bits: op:8 | r1:8 | r2:8 | rd:8, as in DIF.  There are
 * MT_NREGS 64-bit registers; %r0 always reads 0 and writes to it are ignored.
 * Branch targets are instruction indices held in the low 24 bits and must be
 * forward (the verifier rejects backward branches: every program terminates).
 * Forms (V16 = a 16-bit index in the r1:r2 bytes, r1 high byte):
 *
 *   OR..UREM, SRA      rd = r1 op r2 (64-bit; SDIV/UDIV/SREM/UREM by 0 fault
 *                      MT_FLT_DIVZERO)
 *   NOT  r1,rd         rd = ~r1               MOV r1,rd     rd = r1
 *   CMP  r1,r2         compare, sets condition codes (n,z,v,c as DIF)
 *   TST  r1            compare r1 with 0
 *   SCMP r1,r2         string compare (strcmp of at most strsize bytes, via
 *                      safe loads), sets cc as CMP of the sign of the result
 *   BA..BLEU label24   branch on condition codes (label = target index)
 *   LDSB..LDX r1,rd    rd = *(r1), sign/zero-extended; always a safe load
 *   STB..STX r1,rd     *(rd) = r1; only into scratch (alloca) space: anything
 *                      else faults MT_FLT_BADADDR
 *   RET  rd            return rd (for by-ref types rd holds the address)
 *   NOP
 *   SETX V16,rd        rd = inttab[V16]
 *   SETS V16,rd        rd = address of strtab + V16 (a NUL-terminated string)
 *   LDGS V16,rd        rd = global scalar / builtin variable V16
 *   STGS V16,r1(rd fld)  global variable V16 = rd... see MT_STV below
 *   LDTS/STTS          same for thread-local (self->) variables
 *   LDLS/STLS          same for clause-local (this->) variables
 *   LDGA V8=r1,r2,rd   rd = builtin array variable r1 [ %r2 ] (args[], uregs[])
 *   LDGAA/STGAA        global associative array V16, key = the tuple stack
 *   LDTAA/STTAA        thread-local associative array V16, key = tuple stack
 *   CALL V16,rd        rd = subroutine V16 (MT_SUBR_*), arguments = tuple
 *                      stack entries in order; the stack is left as it was
 *                      before the arguments were pushed (callee pops them)
 *   PUSHTR t,r2,rs     push by reference: type byte t (MT_TT_*) in r1 slot,
 *                      size register r2 (0 for strings), value rs in rd slot
 *   PUSHTV t,rs        push by value (integer), t in r1 slot, rs in rd slot
 *   POPTS              drop the top tuple entry
 *   FLUSHTS            empty the tuple stack
 *   ALLOCS r1,rd       rd = alloca(r1 bytes) from scratch, zeroed, 8-aligned
 *   COPYS r1,r2,rd     copy r2 bytes from address r1 to address rd (rd must
 *                      be scratch; loads are safe loads)
 *
 * Stores to variables: for STGS/STTS/STLS the *source* register is in the rd
 * slot and the variable id in V16 (as in DIF).  For STGAA/STTAA: V16 variable,
 * rd slot = source register; the key is the tuple stack.  Storing 0 into a
 * thread-local or associative element deletes it (frees its dynamic
 * variable), as DTrace does.  By-reference variables (MT_VF_REF: strings,
 * structs, arrays) copy their value (size from the variable table) on store
 * and load as the address of their storage.
 * ------------------------------------------------------------------------ */
typedef uint32_t mt_instr_t;

#define MT_NREGS		16
#define MT_TUPLE_MAX		16	/* tuple stack depth */

#define MT_INSTR(op, r1, r2, rd) \
	((mt_instr_t)(((uint32_t)(op) << 24) | ((uint32_t)(r1) << 16) | \
		      ((uint32_t)(r2) << 8) | (uint32_t)(rd)))
#define MT_INSTR_V16(op, v, rd)	MT_INSTR(op, ((v) >> 8) & 0xff, (v) & 0xff, rd)
#define MT_INSTR_BR(op, label)	((mt_instr_t)(((uint32_t)(op) << 24) | ((label) & 0xffffff)))
#define MT_OP(i)		(((i) >> 24) & 0xff)
#define MT_R1(i)		(((i) >> 16) & 0xff)
#define MT_R2(i)		(((i) >> 8) & 0xff)
#define MT_RD(i)		((i) & 0xff)
#define MT_V16(i)		(((i) >> 8) & 0xffff)
#define MT_LABEL(i)		((i) & 0xffffff)

enum mt_op {
	MT_OP_NOP = 0,
	MT_OP_OR, MT_OP_XOR, MT_OP_AND, MT_OP_SLL, MT_OP_SRL, MT_OP_SRA,
	MT_OP_SUB, MT_OP_ADD, MT_OP_MUL, MT_OP_SDIV, MT_OP_UDIV, MT_OP_SREM,
	MT_OP_UREM, MT_OP_NOT, MT_OP_MOV,
	MT_OP_CMP, MT_OP_TST, MT_OP_SCMP,
	MT_OP_BA, MT_OP_BE, MT_OP_BNE, MT_OP_BG, MT_OP_BGU, MT_OP_BGE,
	MT_OP_BGEU, MT_OP_BL, MT_OP_BLU, MT_OP_BLE, MT_OP_BLEU,
	MT_OP_LDSB, MT_OP_LDSH, MT_OP_LDSW, MT_OP_LDUB, MT_OP_LDUH,
	MT_OP_LDUW, MT_OP_LDX,
	MT_OP_STB, MT_OP_STH, MT_OP_STW, MT_OP_STX,
	MT_OP_RET, MT_OP_SETX, MT_OP_SETS,
	MT_OP_LDGS, MT_OP_STGS, MT_OP_LDTS, MT_OP_STTS, MT_OP_LDLS, MT_OP_STLS,
	MT_OP_LDGA, MT_OP_LDGAA, MT_OP_STGAA, MT_OP_LDTAA, MT_OP_STTAA,
	MT_OP_CALL, MT_OP_PUSHTR, MT_OP_PUSHTV, MT_OP_POPTS, MT_OP_FLUSHTS,
	MT_OP_ALLOCS, MT_OP_COPYS,
	MT_OP__COUNT
};

/* Tuple entry types (PUSHTR/PUSHTV). */
enum mt_tuple_type {
	MT_TT_INT = 0,		/* by value, 8 bytes in a key */
	MT_TT_STR = 1,		/* by ref, NUL-terminated, strsize bytes in a key */
	MT_TT_MEM = 2		/* by ref, size from the size register */
};

/*
 * Variable ids.  Ids below MT_VAR_USER are built-ins (read with LDGS, or LDGA
 * for the array ones); user variables are numbered from MT_VAR_USER in each
 * scope separately and described by the image's variable table.
 */
enum mt_builtin_var {
	MT_VAR_ARGS = 0,	/* LDGA: args[] (typed by the compiler) */
	MT_VAR_REGS,		/* LDGA: regs[] */
	MT_VAR_UREGS,		/* LDGA: uregs[] */
	MT_VAR_CURTHREAD = 0x100,
	MT_VAR_TIMESTAMP, MT_VAR_VTIMESTAMP, MT_VAR_IPL, MT_VAR_EPID,
	MT_VAR_ID, MT_VAR_ARG0, MT_VAR_ARG1, MT_VAR_ARG2, MT_VAR_ARG3,
	MT_VAR_ARG4, MT_VAR_ARG5, MT_VAR_ARG6, MT_VAR_ARG7, MT_VAR_ARG8,
	MT_VAR_ARG9, MT_VAR_STACKDEPTH, MT_VAR_CALLER, MT_VAR_PROBEPROV,
	MT_VAR_PROBEMOD, MT_VAR_PROBEFUNC, MT_VAR_PROBENAME, MT_VAR_PID,
	MT_VAR_TID, MT_VAR_EXECNAME, MT_VAR_ZONENAME, MT_VAR_WALLTIMESTAMP,
	MT_VAR_USTACKDEPTH, MT_VAR_UCALLER, MT_VAR_PPID, MT_VAR_UID,
	MT_VAR_GID, MT_VAR_ERRNO, MT_VAR_CURCPU, MT_VAR_CPU, MT_VAR_EXECARGS,
	MT_VAR_TASK,		/* GNU Mach: current task address */
	MT_VAR_BUILTIN_END,
	MT_VAR_USER = 0x500
};

/*
 * Subroutines (CALL).  Arguments come from the tuple stack in source order.
 * String results are written to scratch space; running out of scratch
 * faults MT_FLT_NOSCRATCH.
 */
enum mt_subr {
	MT_SUBR_RAND = 0, MT_SUBR_MUTEX_OWNED, MT_SUBR_MUTEX_OWNER,
	MT_SUBR_MUTEX_TYPE_ADAPTIVE, MT_SUBR_MUTEX_TYPE_SPIN,
	MT_SUBR_RW_READ_HELD, MT_SUBR_RW_WRITE_HELD, MT_SUBR_RW_ISWRITER,
	MT_SUBR_COPYIN, MT_SUBR_COPYINSTR, MT_SUBR_SPECULATION,
	MT_SUBR_PROGENYOF, MT_SUBR_STRLEN, MT_SUBR_COPYOUT, MT_SUBR_COPYOUTSTR,
	MT_SUBR_ALLOCA, MT_SUBR_BCOPY, MT_SUBR_COPYINTO, MT_SUBR_MSGDSIZE,
	MT_SUBR_MSGSIZE, MT_SUBR_GETMAJOR, MT_SUBR_GETMINOR, MT_SUBR_DDI_PATHNAME,
	MT_SUBR_STRJOIN, MT_SUBR_LLTOSTR, MT_SUBR_BASENAME, MT_SUBR_DIRNAME,
	MT_SUBR_CLEANPATH, MT_SUBR_STRCHR, MT_SUBR_STRRCHR, MT_SUBR_STRSTR,
	MT_SUBR_STRTOK, MT_SUBR_SUBSTR, MT_SUBR_INDEX, MT_SUBR_RINDEX,
	MT_SUBR_HTONS, MT_SUBR_HTONL, MT_SUBR_HTONLL, MT_SUBR_NTOHS,
	MT_SUBR_NTOHL, MT_SUBR_NTOHLL, MT_SUBR_INET_NTOP, MT_SUBR_INET_NTOA,
	MT_SUBR_INET_NTOA6, MT_SUBR_TOUPPER, MT_SUBR_TOLOWER, MT_SUBR_GETF,
	MT_SUBR_STRTOLL, MT_SUBR_LINK_NTOP, MT_SUBR_D_PATH, MT_SUBR_STRCMP,
	MT_SUBR_ARRIDX,		/* internal: index of a declared array, checked */
	MT_SUBR_MACH_MSGNAME,	/* machtrace: a Mach message id's MIG routine */
	MT_SUBR_MACH_MSGSUBSYSTEM, /* machtrace: its MIG subsystem */
	/* machtrace's: a GNU Mach task's pid, a thread's tid and execname
	   (the numbers and names pid/tid/execname give) */
	MT_SUBR_MACH_PID, MT_SUBR_MACH_TID, MT_SUBR_MACH_EXECNAME,
	MT_SUBR_ALLOCASTR,	/* internal: a string at an alloca()'d pointer */
	MT_SUBR__COUNT
};

/* Faults: why a clause stopped; the ERROR probe's arg4 (DTRACEFLT_* order). */
enum mt_fault {
	MT_FLT_NONE = 0, MT_FLT_BADADDR, MT_FLT_BADALIGN, MT_FLT_ILLOP,
	MT_FLT_DIVZERO, MT_FLT_NOSCRATCH, MT_FLT_KPRIV, MT_FLT_UPRIV,
	MT_FLT_TUPOFLOW, MT_FLT_BADSTACK, MT_FLT_BADSIZE, MT_FLT_BADINDEX,
	MT_FLT_LIBRARY
};

/* ------------------------------------------------------------------------
 * Enabling image.
 *
 * The host compiles a D program, matches its probe descriptions against the
 * target's probes and writes one contiguous image: a header followed by
 * tables, every reference an offset from the start of the image (or an index
 * into a table).  The runtime only reads it.  Layout:
 *
 *   mt_image | probes[] | ecbs[] | clauses[] | actions[] | recs[] | aggs[] |
 *   vars[] | difos[] | text (instructions) | inttab | strtab |
 *   msgids[] | msgstr
 *
 * EPIDs are indices into ecbs[] starting at 1 (0 is never a valid EPID: it
 * marks padding in buffers).  An ECB binds one probe to one clause; a record
 * written for an ECB has the layout of its clause, fixed for the session.
 * ------------------------------------------------------------------------ */
struct mt_image {
	uint32_t magic, version;	/* [L] MT_IMAGE_MAGIC, MT_ABI_VERSION */
	uint32_t size;			/* [L] total bytes of the image */
	uint32_t nprobes, probes_off;	/* [L] struct mt_probe[] */
	uint32_t necbs, ecbs_off;	/* [L] struct mt_ecb[]; epid = index + 1 */
	uint32_t nclauses, clauses_off;	/* [L] struct mt_clause[] */
	uint32_t nactions, actions_off;	/* [L] struct mt_action[] */
	uint32_t nrecs, recs_off;	/* [L] struct mt_rec[] */
	uint32_t naggs, aggs_off;	/* [L] struct mt_agg[]; aggid = index + 1 */
	uint32_t nvars, vars_off;	/* [L] struct mt_var[] */
	uint32_t ndifos, difos_off;	/* [L] struct mt_difo[] */
	uint32_t ntext, text_off;	/* [L] mt_instr_t[] shared by all DIFOs */
	uint32_t nints, ints_off;	/* [L] uint64_t inttab[] shared by all DIFOs */
	uint32_t strtab_size, strtab_off; /* [L] char strtab[] shared by all DIFOs */
	/* runtime options (bytes unless said), made by mt_opts_image()
	   (common/options.c); the runtime has no defaults of its own */
	struct mt_options {
		uint64_t bufsize;	/* [L] per-CPU principal buffer */
		uint64_t aggsize;	/* [L] per-CPU aggregation buffer */
		uint64_t dynvarsize;	/* [L] dynamic variable space */
		uint64_t specsize;	/* [L] per speculation buffer */
		uint64_t scratchsize;	/* [L] per-CPU alloca() scratch, plus
					   MT_SCRATCH_STRROOM for strings */
		uint32_t nspec;		/* [L] number of speculation buffers */
		uint32_t strsize;	/* [L] max string size incl. NUL, > 0 */
		uint32_t bufpolicy;	/* [L] MT_BUFPOLICY_* */
		uint32_t stackframes;	/* [L] default stack() depth */
		uint32_t ncpus;		/* [L] CPUs the runtime keeps buffers for */
		uint32_t flags;		/* [L] MT_OPT_F_* */
	} opt;
	uint32_t error_probe;		/* [L] probe id of dtrace:::ERROR, 0 if none */
	uint32_t nmsgids, msgids_off;	/* [L] struct mt_msgid[], 0 when unused */
	uint32_t msgstr_size, msgstr_off; /* [L] char msgstr[]: their names */
	uint32_t pad;
};

#define MT_BUFPOLICY_SWITCH	0
#define MT_BUFPOLICY_FILL	1
#define MT_BUFPOLICY_RING	2

#define MT_OPT_F_DESTRUCTIVE	0x1	/* -w: destructive actions allowed */

/* The scratch beyond scratchsize that string results get (8 strings). */
#define MT_SCRATCH_STRROOM(strsize)	(8 * (uint64_t)(strsize) + 1024)

/* A probe the image knows.  Names are strtab offsets. */
#define MT_PROBE_MAXMAP		7
#define MT_ARGMAP_ZERO		0xff
#define MT_ARGMAP_CURTHREAD	0xfe
#define MT_ARGMAP_ELAPSED	0xfd	/* ns since the current thread's
					   stamp (mt_rt_stamp), which it
					   consumes; 0 without one */

struct mt_probe {
	uint32_t id;			/* [L] target's probe id (printed as ID) */
	uint32_t prov, mod, func, name;	/* [L] strtab offsets */
	uint32_t ecb0, necbs;		/* [L] ECBs of this probe, in clause order */
	uint32_t kind;			/* [L] target-specific (MT_PK_*) */
	uint64_t arg;			/* [L] target-specific (e.g. tick interval ns) */
	/* [L] a provider's argument mapping (SDT probes): when nmap > 0,
	   arg_i of a firing is the site's raw argument argmap[i] for
	   i < nmap (MT_ARGMAP_ZERO: 0; MT_ARGMAP_CURTHREAD: the current
	   thread, as curthread; MT_ARGMAP_ELAPSED: ns since the thread's
	   stamp), 0 beyond; nmap 0: the raw arguments as they are */
	uint8_t nmap, argmap[MT_PROBE_MAXMAP];
};
_Static_assert(MT_PROBE_MAXMAP == 7, "mt_probe: nmap + argmap fill 8 bytes");

enum mt_probe_kind {
	MT_PK_BEGIN = 1, MT_PK_END, MT_PK_ERROR, MT_PK_TICK, MT_PK_PROFILE,
	MT_PK_FBT_ENTRY, MT_PK_FBT_RETURN, MT_PK_OTHER
};

/*
 * The dtrace provider's probe ids, as dtrace numbers them.  Other probes a
 * target creates get ids after these.
 */
#define MT_PROBE_BEGIN		1
#define MT_PROBE_END		2
#define MT_PROBE_ERROR		3

struct mt_ecb {
	uint32_t probe;			/* [L] index into probes[] */
	uint32_t clause;		/* [L] index into clauses[] */
};

/*
 * A clause: predicate and actions.  The record a clause writes is
 * mt_rechdr followed by recsize bytes; each rec's offset is relative to the
 * end of the header.  Clause-local variables (this->) live for one firing.
 */
struct mt_clause {
	uint32_t pred_difo;		/* [L] index+1 into difos[], 0 = no predicate */
	uint32_t act0, nacts;		/* [L] actions[act0 .. act0+nacts) */
	uint32_t recsize;		/* [L] bytes after the header, 8-aligned */
	uint32_t flags;			/* [L] MT_CF_* */
};

#define MT_CF_SPECULATIVE	0x1	/* has speculate(): records go to spec */
#define MT_CF_NEEDS_RECORD	0x2	/* writes to the principal buffer */

/*
 * Actions, executed in order when the predicate holds.  Each action owns
 * recs[rec0 .. rec0+nrecs): values computed by their DIFOs and written into
 * the clause's record at rec.offset.  Kind-specific use of arg:
 *
 *   TRACE       one rec (int, string or memory)
 *   PRINTF, PRINTA, SYSTEM, FREOPEN, PRINTM, SETOPT, CLEAR, NORMALIZE,
 *   DENORMALIZE, TRUNC, FTRUNCATE, PCAP, PRINT
 *               arg = consumer-side description index (format string etc.,
 *               see the host program); recs = the values to record. The
 *               runtime treats them like TRACE; the consumer acts on them.
 *   EXIT        rec 0 = status; the runtime sets the control block's exit
 *               request (MT_CB_EXITING) after the record is committed
 *   AGG         arg = aggid; recs = key elements then the value argument(s)
 *               (flag MT_RF_AGGVAL); nothing goes to the principal buffer
 *   SPECULATE   rec 0 = speculation id: the rest of the clause records into
 *               that speculation's buffer (id 0: the clause records nothing)
 *   COMMIT, DISCARD  rec 0 = speculation id
 *   STACK, USTACK    arg = frames; rec 0 kind MT_REC_STACK (pcs as uint64)
 *   TRACEMEM    rec 0 = address (MT_REC_MEM, size = bytes), rec 1 optional
 *               dynamic size (MT_REC_INT)
 *   CHILL, RAISE, STOP, BREAKPOINT, PANIC  destructive, need MT_OPT_F_DESTRUCTIVE
 *   ERRREC      internal: error record written by the runtime itself
 */
enum mt_act_kind {
	MT_ACT_TRACE = 1, MT_ACT_PRINTF, MT_ACT_PRINTA, MT_ACT_EXIT,
	MT_ACT_AGG, MT_ACT_SPECULATE, MT_ACT_COMMIT, MT_ACT_DISCARD,
	MT_ACT_STACK, MT_ACT_USTACK, MT_ACT_TRACEMEM, MT_ACT_CLEAR,
	MT_ACT_NORMALIZE, MT_ACT_DENORMALIZE, MT_ACT_TRUNC, MT_ACT_SETOPT,
	MT_ACT_SYSTEM, MT_ACT_FREOPEN, MT_ACT_FTRUNCATE, MT_ACT_PRINTM,
	MT_ACT_PCAP, MT_ACT_PRINT, MT_ACT_CHILL, MT_ACT_RAISE, MT_ACT_STOP,
	MT_ACT_BREAKPOINT, MT_ACT_PANIC, MT_ACT_SYM, MT_ACT_MOD,
	MT_ACT_USYM, MT_ACT_UMOD, MT_ACT_UADDR,
	MT_ACT_DIFEXPR,		/* evaluate rec 0's DIFO for its side effects
				   (assignments); rec size 0, nothing recorded */
	MT_ACT_IF,		/* D's if: rec 0's DIFO is the condition; when
				   it is 0, the next `arg` actions are skipped.
				   Rec size 1 (the condition, for the consumer)
				   when a skipped action records data, else 0 */
	MT_ACT_SKIP,		/* end of an if's then-branch: skip the next
				   `arg` actions (the else-branch); no recs */
	MT_ACT__COUNT
};

struct mt_action {
	uint16_t kind;			/* [L] MT_ACT_* */
	uint16_t nrecs;			/* [L] recs[rec0 .. rec0+nrecs) */
	uint32_t rec0;			/* [L] */
	uint64_t arg;			/* [L] kind-specific, above */
};

/* One recorded value. */
struct mt_rec {
	uint32_t difo;			/* [L] index+1 into difos[], 0 = no value */
	uint16_t kind;			/* [L] MT_REC_* */
	uint16_t flags;			/* [L] MT_RF_* */
	uint32_t offset;		/* [L] within the clause record (after hdr) */
	uint32_t size;			/* [L] bytes reserved in the record */
};

enum mt_rec_kind {
	MT_REC_INT = 1,		/* size 1, 2, 4 or 8: the DIFO's value, truncated */
	MT_REC_STR,		/* copy a string (safe loads), NUL-pad to size */
	MT_REC_MEM,		/* copy size bytes from the DIFO's address */
	MT_REC_STACK		/* size/8 kernel pcs, 0-terminated if fewer */
};

#define MT_RF_AGGVAL		0x1	/* AGG: value argument, not a key */
#define MT_RF_SIGNED		0x2	/* INT: value is signed (consumer use) */
/* The record starts with the current pid (8 bytes), as dtrace's user
   records: STACK: a user stack, size/8 - 1 user pcs after the pid; INT
   (size 16): usym(), umod(), uaddr() and %A, the pid then the value.
   The consumer symbolises the pcs in that task's program. */
#define MT_RF_UPID		0x4
/* The scratch this rec's DIFO allocates (string temporaries) is dead once
   the rec is written: the runtime gives it back, so a clause of many
   string statements reuses it, as dtrace-utils' temporary string slots.
   The compiler sets it only where no scratch address can outlive the
   rec (see cg_temps_dead). */
#define MT_RF_TEMPS		0x8

/*
 * Aggregations.  A key is the aggid followed by each key element: 8 bytes
 * per integer, strsize bytes per string (NUL-padded), the element's size for
 * memory.  Values are int64 arrays (MT_AGG_NVALS(agg) of them):
 *   COUNT [n]   SUM [s]   MIN [m] (init INT64_MAX)   MAX [m] (init INT64_MIN)
 *   AVG [n, s]   STDDEV [n, s, sumsq_lo, sumsq_hi] (128-bit sum of squares)
 *   QUANTIZE [127 buckets]: bucket 63 holds 0, 64+k holds [2^k, 2^(k+1)),
 *       62-k holds (-2^(k+1), -2^k]; as DTRACE_QUANTIZE_*.
 *   LQUANTIZE [levels + 2] with levels = (limit - base) / step: [0] below
 *       base, [1+i] base + i*step.., [levels+1] at or above limit.
 *   LLQUANTIZE as illumos dtrace_aggregate_llquantize (nbuckets in nvals).
 * Each value may add an increment (second value argument of quantize etc.).
 */
enum mt_agg_func {
	MT_AGG_COUNT = 1, MT_AGG_SUM, MT_AGG_AVG, MT_AGG_MIN, MT_AGG_MAX,
	MT_AGG_STDDEV, MT_AGG_QUANTIZE, MT_AGG_LQUANTIZE, MT_AGG_LLQUANTIZE
};

#define MT_QUANTIZE_NBUCKETS	127
#define MT_QUANTIZE_ZERO	63

struct mt_agg {
	uint32_t func;			/* [L] MT_AGG_* */
	uint32_t keysize;		/* [L] bytes of key, incl. the 4-byte aggid + pad to 8 */
	uint32_t nvals;			/* [L] int64 values per entry */
	uint32_t nkeys;			/* [L] key elements */
	int64_t param[4];		/* [L] lquantize: base, limit, step;
					   llquantize: factor, low, high, nsteps */
};

/*
 * Mach message ids to MIG names, for mach_msgname()/mach_msgsubsystem().
 * The link stage adds the table only when the program calls one of them.
 * Sorted by id, strictly ascending (the verifier checks it), so probe
 * context finds an id by binary search.  name and subsystem are offsets
 * into msgstr (NUL-terminated strings).  A reply entry (MT_MSGID_REPLY)
 * names ROUTINE-reply; an id with no entry whose (id / 100) % 2 == 1 and
 * whose id - 100 is a request is a reply too (rpctrace's rule); any other
 * id is named by its decimal number, with subsystem "".
 */
struct mt_msgid {
	int32_t id;			/* [L] mach_msg_id_t */
	uint32_t name;			/* [L] msgstr offset of the routine */
	uint32_t subsystem;		/* [L] msgstr offset of the subsystem */
	uint32_t flags;			/* [L] MT_MSGID_* */
};

#define MT_MSGID_REPLY		0x1	/* the reply id of routine `name` */

/* User variables.  Storage for globals and locals is in the runtime. */
struct mt_var {
	uint16_t id;			/* [L] MT_VAR_USER.. within its scope */
	uint8_t scope;			/* [L] MT_VS_* */
	uint8_t kind;			/* [L] MT_VK_SCALAR or MT_VK_ASSOC */
	uint32_t flags;			/* [L] MT_VF_* */
	uint32_t size;			/* [L] bytes of the value (8 for integers) */
	uint32_t keysize;		/* [L] assoc: bytes of the key tuple */
};

enum mt_var_scope { MT_VS_GLOBAL = 0, MT_VS_THREAD, MT_VS_LOCAL };
enum mt_var_kind { MT_VK_SCALAR = 0, MT_VK_ASSOC };
#define MT_VF_REF		0x1	/* by reference (string/struct/array) */
#define MT_VF_STRING		0x2	/* the value is a string */

/* A compiled expression or predicate: a slice of text. */
struct mt_difo {
	uint32_t text0, ntext;		/* [L] instructions text[text0..+ntext) */
	uint32_t rtype;			/* [L] MT_RT_* : what RET yields */
	uint32_t rsize;			/* [L] bytes for by-ref results */
};

enum mt_rtype { MT_RT_INT = 0, MT_RT_STRING, MT_RT_REF };

/*
 * An image's tables, found from their offsets: the runtime (struct rt)
 * and the probe compiler (struct jit) each keep one.
 */
struct mt_image_tabs {
	const struct mt_probe *probes;
	const struct mt_ecb *ecbs;
	const struct mt_clause *clauses;
	const struct mt_action *actions;
	const struct mt_rec *recs;
	const struct mt_agg *aggs;
	const struct mt_var *vars;
	const struct mt_difo *difos;
	const mt_instr_t *text;
	const uint64_t *ints;
	const char *strtab;
};

static inline struct mt_image_tabs mt_image_tabs(const struct mt_image *img)
{
	const uint8_t *b = (const uint8_t *)img;
	struct mt_image_tabs t = {
		.probes = (const struct mt_probe *)(b + img->probes_off),
		.ecbs = (const struct mt_ecb *)(b + img->ecbs_off),
		.clauses = (const struct mt_clause *)(b + img->clauses_off),
		.actions = (const struct mt_action *)(b + img->actions_off),
		.recs = (const struct mt_rec *)(b + img->recs_off),
		.aggs = (const struct mt_agg *)(b + img->aggs_off),
		.vars = (const struct mt_var *)(b + img->vars_off),
		.difos = (const struct mt_difo *)(b + img->difos_off),
		.text = (const mt_instr_t *)(b + img->text_off),
		.ints = (const uint64_t *)(b + img->ints_off),
		.strtab = (const char *)(b + img->strtab_off),
	};
	return t;
}

/* Whether some DIFO of the image reads built-in variable v. */
static inline int mt_image_reads_var(const struct mt_image *img, uint32_t v)
{
	const mt_instr_t *text = mt_image_tabs(img).text;

	for (uint32_t i = 0; i < img->ntext; i++)
		if (MT_OP(text[i]) == MT_OP_LDGS && MT_V16(text[i]) == v)
			return 1;
	return 0;
}

/*
 * Scalar thread-locals (self->x of an integer or pointer type, held by
 * value) have a column each in the runtime's per-thread rows, numbered in
 * vars[] order (runtime/tls.c lays the rows out, compiled probes, jit/,
 * find them too).  A row is { u64 thread key; int64 values[ncols] }; a
 * thread's row is one of the MT_TLS_PROBE rows from mt_tls_hash(key),
 * wrapping (the layout in runtime/rt.h, "tls.c").
 */
#define MT_TLS_PROBE		8
static inline uint32_t mt_tls_hash(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32);
}

static inline int mt_var_tls(const struct mt_var *v)
{
	return v->scope == MT_VS_THREAD && v->kind == MT_VK_SCALAR &&
		!(v->flags & MT_VF_REF) && v->id >= MT_VAR_USER;
}

/* var's column, -1 if it has none; *ncols (if given) the image's count. */
static inline int32_t mt_tls_column(const struct mt_image *img, uint32_t var,
				    uint32_t *ncols)
{
	const struct mt_var *vars =
		(const struct mt_var *)((const uint8_t *)img + img->vars_off);
	int32_t col = -1;
	uint32_t n = 0;

	for (uint32_t i = 0; i < img->nvars; i++) {
		if (!mt_var_tls(&vars[i]))
			continue;
		if (vars[i].id == var)
			col = (int32_t)n;
		n++;
	}
	if (ncols)
		*ncols = n;
	return col;
}

/*
 * An aggregation key element made of a probe name alone: its DIFO is
 * "LDGS probeprov|probemod|probefunc|probename; RET".  A key of such
 * elements only is the same at every firing of one ECB, which the
 * runtime (agg.c) and compiled probes (jit/) both rely on.
 */
static inline int mt_rec_probe_named(const struct mt_rec *rec,
				     const struct mt_difo *difos,
				     const mt_instr_t *text)
{
	const struct mt_difo *d;
	const mt_instr_t *t;
	uint32_t v;

	if (rec->kind != MT_REC_STR || rec->difo == 0)
		return 0;
	d = &difos[rec->difo - 1];
	t = text + d->text0;
	v = MT_V16(t[0]);
	return d->ntext == 2 && MT_OP(t[0]) == MT_OP_LDGS &&
	       (v == MT_VAR_PROBEPROV || v == MT_VAR_PROBEMOD ||
		v == MT_VAR_PROBEFUNC || v == MT_VAR_PROBENAME) &&
	       MT_OP(t[1]) == MT_OP_RET && MT_RD(t[1]) == MT_RD(t[0]);
}

/* ------------------------------------------------------------------------
 * Records in principal and speculation buffers.
 *
 * Each record is an 8-aligned mt_rechdr followed by the clause's recsize
 * bytes.  epid 0 marks padding up to the end of the buffer (ring policy:
 * records never straddle the end).  The runtime's own error record uses
 * MT_EPID_ERROR and carries struct mt_errrec.
 * ------------------------------------------------------------------------ */
struct mt_rechdr {			/* in a buffer: [k] when the record is
					   written, read by [c] after head */
	uint32_t epid;			/* [k] ECB, or MT_EPID_ERROR, 0 = pad */
	uint32_t cpu;			/* [k] */
	uint64_t timestamp;		/* [k] ns */
};

#define MT_EPID_ERROR		0xfffffffeu

struct mt_errrec {
	uint32_t epid;			/* [k] ECB that faulted */
	uint32_t action;		/* [k] index of the action in its clause, -1 = predicate */
	uint32_t pc;			/* [k] instruction index within the DIFO */
	uint32_t fault;			/* [k] MT_FLT_* */
	uint64_t addr;			/* [k] faulting address/value */
};

/* ------------------------------------------------------------------------
 * Control block and buffers: the runtime's state, shared with the host.
 *
 * A single-producer single-consumer ring per CPU.  head and tail count bytes
 * ever written/consumed (offset = count % size).  The runtime (probe context)
 * owns head; the consumer owns tail for the switch and fill policies.  For
 * the ring policy the runtime also advances tail over records it overwrites,
 * and the consumer reads only after tracing stopped.
 * ------------------------------------------------------------------------ */
struct mt_cpubuf {
	uint64_t head;			/* [k] bytes ever written */
	uint64_t tail;			/* [c] bytes consumed ([k] too for RING) */
	uint64_t drops;			/* [k] records dropped, buffer full */
	uint64_t size;			/* [I] */
	uint64_t data_off;		/* [I] offset of the data from the control block */
	uint32_t filled;		/* [k] FILL policy: buffer is full, stop */
	uint32_t pad;
};

/*
 * Per-CPU counters the consumer reports as dtrace does; each only grows
 * and is written by its CPU's firings alone.  dtrace's other drop kinds
 * cannot happen here, so they have no counter: dirty dynamic variable
 * drops (a variable is freed at once, there is no dirty list to rinse),
 * busy speculations (commit and discard are done when they return) and
 * stack string table overflows (no ustack helpers).
 */
struct mt_cpustat {
	uint64_t aggdrops;		/* [k] aggregation buffer full */
	uint64_t dynvar_drops;		/* [k] dynamic variable space full */
	uint64_t spec_drops;		/* [k] speculation buffer full */
	uint64_t spec_unavail;		/* [k] no free speculation */
	uint64_t errors;		/* [k] faults */
	uint64_t nested;		/* [k] firings ignored: CPU already in the runtime */
	uint64_t dblerrors;		/* [k] faults in ERROR clauses (not reported) */
	uint64_t probe_ns;		/* [k] time in probe context since
					   tracing began, as the platform times
					   its firings (mt_rt_probe_time; GNU
					   Mach: updated every clock tick;
					   compiled probes are not timed) */
};

/*
 * Aggregation buffer (per CPU): a hash table of entries in one area.
 *   entry: struct mt_aggent, key bytes (keysize of its agg), int64 vals[].
 * Entries are appended and never moved; the consumer snapshots by walking
 * [0, used) entry by entry (each entry's size = sizeof hdr + keysize + 8 *
 * nvals of its aggid).  clear()/trunc() of count, sum, avg, stddev and the
 * quantizes never touch these entries: the consumer keeps baselines, so no
 * update is lost to a reset racing with probes.  min()/max() are reset by
 * the runtime on the consumer's request through the control block
 * (mt_cb.req).
 */
struct mt_aggent {
	uint32_t next;			/* [k] offset of the next entry in the bucket + 1 */
	uint32_t hash;			/* [k] when the entry is made */
	uint32_t aggid;			/* [k] when the entry is made */
	uint32_t gen;			/* [k] 0 when made, bumped after the values
					   by every update: a snapshot skips gen 0
					   (made, first update under way) */
};

struct mt_aggbuf {
	uint64_t used;			/* [k] bytes of entries (released after
					   the entry is complete) */
	uint64_t size;			/* [I] bytes available for entries */
	uint64_t data_off;		/* [I] from the control block */
	uint64_t hash_off;		/* [I] uint32 bucket heads (offset+1) */
	uint32_t nbuckets;		/* [I] */
	uint32_t pad;
};

/* The control block at the start of the runtime's state area. */
struct mt_cb {
	uint32_t magic;			/* [I] MT_CB_MAGIC */
	uint32_t version;		/* [I] MT_ABI_VERSION */
	uint32_t state;			/* MT_CB_*: [I] IDLE, then ACTIVE at
					   BEGIN; [k] EXITING (exit()); STOPPED
					   when the target ends tracing ([h]
					   local, the blob's STOP on GNU Mach) */
	uint32_t ncpus;			/* [I] */
	int64_t exit_status;		/* [k] set by exit() */
	uint64_t nfirings;		/* [k] probe firings seen */
	uint64_t image_off;		/* [I] enabling image, from the control block */
	uint64_t cpubuf_off;		/* [I] struct mt_cpubuf[ncpus] */
	uint64_t cpustat_off;		/* [I] struct mt_cpustat[ncpus] */
	uint64_t aggbuf_off;		/* [I] struct mt_aggbuf[ncpus] */
	uint32_t req;			/* [h] sets a request (MT_REQ_*), [k]
					   acks it by writing MT_REQ_NONE */
	uint32_t req_arg;		/* [h] before req */
};

#define MT_CB_MAGIC		0x4d544342u	/* "MTCB" */
#define MT_CB_IDLE		0
#define MT_CB_ACTIVE		1
#define MT_CB_EXITING		2	/* exit() was called */
#define MT_CB_STOPPED		3

#define MT_REQ_NONE		0
#define MT_REQ_AGGCLEAR		1	/* zero values of aggid req_arg */
#define MT_REQ_AGGTRUNC		2	/* remove entries of aggid req_arg */

/*
 * The sizes of the shared structures: the host, the local runtime and the
 * kernel blob must agree on them byte for byte.  Changing one is an ABI
 * change: bump MT_ABI_VERSION and record it in docs/abi-changes.md.
 */
_Static_assert(sizeof(struct mt_image) == 192, "mt_image layout");
_Static_assert(sizeof(struct mt_options) == 64, "mt_options layout");
_Static_assert(sizeof(struct mt_probe) == 48, "mt_probe layout");
_Static_assert(sizeof(struct mt_ecb) == 8, "mt_ecb layout");
_Static_assert(sizeof(struct mt_clause) == 20, "mt_clause layout");
_Static_assert(sizeof(struct mt_action) == 16, "mt_action layout");
_Static_assert(sizeof(struct mt_rec) == 16, "mt_rec layout");
_Static_assert(sizeof(struct mt_agg) == 48, "mt_agg layout");
_Static_assert(sizeof(struct mt_var) == 16, "mt_var layout");
_Static_assert(sizeof(struct mt_msgid) == 16, "mt_msgid layout");
_Static_assert(sizeof(struct mt_difo) == 16, "mt_difo layout");
_Static_assert(sizeof(struct mt_rechdr) == 16, "mt_rechdr layout");
_Static_assert(sizeof(struct mt_errrec) == 24, "mt_errrec layout");
_Static_assert(sizeof(struct mt_cpubuf) == 48, "mt_cpubuf layout");
_Static_assert(sizeof(struct mt_cpustat) == 64, "mt_cpustat layout");
_Static_assert(sizeof(struct mt_aggent) == 16, "mt_aggent layout");
_Static_assert(sizeof(struct mt_aggbuf) == 40, "mt_aggbuf layout");
_Static_assert(sizeof(struct mt_cb) == 72, "mt_cb layout");

#endif /* MACHTRACE_ABI_H */
