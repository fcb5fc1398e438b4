/*
 * Compiled probes (jit/): what the host's x86-64 code for a probe asks
 * the target to fill in when it arms the code.  Shared by the host
 * compiler, the runtime (runtime/jitrt.c resolves the runtime's
 * addresses and provides the helpers the code calls) and the GNU Mach
 * blob (runtime/x86_64/jitarm.c resolves the platform's, writes them).
 *
 * The code a target arms has a copy per CPU (struct lk_jit): "the CPU's"
 * below is the state of the CPU whose copy is relocated, the one it
 * runs on; the helpers find that CPU as the interpreter does.
 *
 * A relocation names a 4-byte field of the code (at: its offset) and a
 * value: the address `kind`/`arg` names plus `addend`, written as a
 * sign-extended 32-bit immediate or displacement (absolute: the state
 * area and the blob are in the kernel's top 2 GiB), or for the REL32
 * kinds as the displacement from the field's end (a call or jmp).
 */
#ifndef MACHTRACE_JITABI_H
#define MACHTRACE_JITABI_H

#include <stdint.h>

enum mt_jit_rel_kind {
	MT_JR_NONE = 0,
	/* the runtime's state (runtime/jitrt.c, mt_rt_jit_addr) */
	MT_JR_CB,		/* the control block (+ addend: a field) */
	MT_JR_BUSY,		/* the CPU's rt_cpu.busy (uint32) */
	MT_JR_AGGENT,		/* &aggent[arg - 1]: aggregation arg's keyless
				   entry on the CPU, offset + 1 (uint32, 0: none) */
	MT_JR_AGGDATA,		/* the CPU's aggregation data */
	MT_JR_ECBENT,		/* &ecbent[arg]: ECB arg's probe-named entry */
	MT_JR_CPUBUF,		/* the CPU's struct mt_cpubuf */
	MT_JR_BUFDATA,		/* the CPU's principal buffer data */
	MT_JR_STRTAB,		/* the image's string table (the runtime's copy) */
	MT_JR_BUFSIZE,		/* the principal buffer's size (a value) */
	MT_JR_GLOBALS,		/* global scalar variable arg's storage (an
				   integer, not by reference) */
	MT_JR_HELPER,		/* REL32: runtime helper arg (MT_JH_*) */
	MT_JR_STAGE,		/* the CPU's staging record (a dropped record's
				   values go there) */
	MT_JR_FAULT,		/* uint32: the CPU's helper fault (MT_FLT_*) not
				   reported yet, 0 if none */
	MT_JR_TLS,		/* the scalar thread-locals' rows (rt.h,
				   "tls.c"): row i at i * the image's row
				   stride, 8 * (1 + its scalar thread-locals) */
	MT_JR_TLS_MASK,		/* the rows' count - 1 (a value, a power of
				   two less one; the rows exist whenever the
				   image has a scalar thread-local) */
	MT_JR_LOCALS,		/* the CPU's storage of scalar clause-local
				   variable arg (this->), zeroed by the
				   interpreter at each firing and by
				   compiled code at each of its firings */
	MT_JR_CPU,		/* the CPU's number (a value: the cpu
				   built-in) */
	/* the platform's (the blob) */
	MT_JR_PLAT_TSCMULT = 64, /* uint64 ns = (tsc * [this]) >> 32 */
	MT_JR_PLAT_EXECNAME,	/* REL32: uint64_t fn(void): the current
				   thread's execname, NUL-terminated, with
				   MT_JIT_PLATNAME bytes readable (GNU Mach:
				   the task's own name when it has one, the
				   blob's copy otherwise) */
	MT_JR_PLAT_CURTHREAD,	/* where the current thread's address is
				   (the CPU's active_thread) */
	MT_JR_PLAT_THRMEMO,	/* the CPU's per-thread memo: entries of
				   MT_JIT_MEMO_SIZE bytes, the one of thread
				   th at ((th >> 6) % MT_JIT_MEMO_N), holding
				   th at 0 and its execname's place at 8 (0:
				   not known), MT_VAR_TID's value at
				   MT_JIT_MEMO_TID when the word at
				   MT_JIT_MEMO_TIDOK is not 0 (MT_VAR_PID's
				   at MT_JIT_MEMO_PID when the word at
				   MT_JIT_MEMO_PIDOK is not 0);
				   MT_JR_PLAT_EXECNAME and MT_JH_VAR fill it
				   (on the CPU they run on) */
	MT_JR_PLAT_VCLOCK,	/* vtimestamp's probe-context clock: uint64
				   TSC at the firing's start (0 outside a
				   firing), then uint64 TSC ticks spent in
				   probe context.  A kernel probe of an image
				   that reads vtimestamp stores the first as
				   it starts, adds its ticks to the second and
				   zeroes the first as it leaves */
	MT_JR_PLAT_LOADABLE,	/* MT_JIT_NLOADABLE ranges that compiled code
				   loads from without the runtime's safe load:
				   uint64 pairs { base, limit }, an address a
				   with a - base < limit (unsigned) has 8
				   bytes loadable (limit 0: none); what the
				   platform's mt_plat_loadable() says of them,
				   outside the runtime's state.  Another
				   address goes through MT_JH_LOAD */
	MT_JR__END
};

/* Runtime helpers compiled code calls (SysV ABI, from probe context with
   interrupts off).  Each returns what its comment says. */
enum mt_jit_helper {
	/* uint32_t (struct mt_cb *cb, uint32_t aggid): the keyless entry of
	   aggid on the CPU, made if need be: offset + 1 in the aggregation
	   data, 0 when the buffer is full (an aggregation drop) */
	MT_JH_KEYLESS = 0,
	/* uint32_t (struct mt_cb *cb, uint32_t ecb, uint32_t act): ECB
	   ecb's entry for its probe-named key of action act (index into
	   actions[]), as MT_JH_KEYLESS */
	MT_JH_NAMED,
	/* void (struct mt_cb *cb, uint32_t ecb, uint32_t act, const uint64_t
	   *args): run action act of ECB ecb with the interpreter (an
	   aggregation: its key and values), args[0..9] the probe's
	   arguments; a fault is reported as the interpreter does */
	MT_JH_ACTION,
	/* uint64_t (struct mt_cb *cb): the current thread's execname, a
	   NUL-terminated string in a buffer of MT_JIT_STRBUF bytes of the
	   runtime's, valid until the next call */
	MT_JH_EXECNAME,
	/* uint64_t (struct mt_cb *cb, uint32_t id): scalar thread-local id
	   of the current thread (0 if none) */
	MT_JH_TLS_LOAD,
	/* void (struct mt_cb *cb, uint32_t id, uint64_t v): store it (0:
	   delete it) */
	MT_JH_TLS_STORE,
	/* uint32_t (struct mt_cb *cb, uint32_t ecb, uint32_t act, uint64_t
	   str): ECB ecb's entry for action act, an aggregation keyed by one
	   string, the string at str; as MT_JH_KEYLESS (a fault is
	   reported).  act | MT_JH_STRKEY_PLATNAME: str is the platform's
	   execname (MT_JR_PLAT_EXECNAME), read without safe loads.  The
	   entry is kept in the ECB's ecbent as { act | MT_JIT_ECBENT_STRKEY,
	   offset + 1 } (a tag the interpreter's probe-named keys never
	   match) for the code to try first */
	MT_JH_STRKEY,
	/* uint64_t (struct mt_cb *cb, uint32_t how, uint64_t addr): a safe
	   load of how & 0xff bytes (1, 2, 4, 8) at addr, sign-extended if
	   how & MT_JH_LOAD_SIGNED; 0 and the fault in MT_JR_FAULT's word if
	   it cannot be loaded */
	MT_JH_LOAD,
	/* void (struct mt_cb *cb, uint32_t ecb, uint32_t where): report the
	   fault in MT_JR_FAULT's word (and clear it) as the interpreter
	   does, where = action index << 16 | DIF pc (action 0xffff: the
	   predicate) */
	MT_JH_FAULT,
	/* uint64_t (struct mt_cb *cb, uint32_t var): built-in variable var
	   (MT_VAR_PID, TID, CURTHREAD...) as mt_plat_var gives it;
	   MT_VAR_TIMESTAMP: mt_plat_time() */
	MT_JH_VAR,
	/* uint32_t (struct mt_cb *cb, uint32_t ecb, uint32_t act, uint64_t
	   key): as MT_JH_STRKEY for an aggregation keyed by one integer */
	MT_JH_INTKEY,
	/* uint64_t (struct mt_cb *cb, uint32_t subr, uint64_t arg): D
	   subroutine subr of one integer argument (MT_SUBR_MACH_PID, _TID,
	   _EXECNAME) as the interpreter calls it; a string result is in the
	   runtime's scratch, valid until the next helper call; 0 and the
	   fault in MT_JR_FAULT's word if it faults */
	MT_JH_SUBR,
	/* uint64_t (struct mt_cb *cb, uint32_t size, uint64_t src, uint64_t
	   dst): the string at src into a record's size bytes at dst (in CPU
	   0's principal buffer or staging record) as the interpreter writes
	   a string record: safe loads up to its NUL, at most size - 1
	   characters, then a NUL; the bytes after it are left alone.  0, or
	   -1 and the fault in MT_JR_FAULT's word */
	MT_JH_STR,
	/* uint64_t (struct mt_cb *cb, uint32_t id, uint64_t key, uint64_t
	   v): global associative array id (an integer value) at the one
	   integer key: its value, or (id | MT_JH_GAA_STORE) v stored there
	   (0: deleted), as the interpreter's LDGAA/STGAA */
	MT_JH_GAA,
	/* void (struct mt_cb *cb, uint32_t ecb, uint32_t act, uint32_t
	   plat): aggregation action act of ECB ecb, its recs' values
	   (keys and values, as their DIFOs give them) at the CPU's staging
	   record, 8 bytes each (the runtime makes it that large); plat bit
	   i: rec i's string is the platform's execname, read without safe
	   loads; a fault is reported as the interpreter does */
	MT_JH_AGGVALS,
	/* uint64_t (struct mt_cb *cb): the ns since the current thread's
	   stamp, which is consumed (MT_ARGMAP_ELAPSED), 0 if none */
	MT_JH_ELAPSED,
	/* uint32_t (struct mt_cb *cb, uint32_t ecb, uint32_t act, uint32_t
	   plat): the entry of aggregation action act of ECB ecb, keyed by
	   integers, constant strings and execname alone, its recs' values
	   at the CPU's staging record (8 bytes a rec; plat as MT_JH_AGGVALS'),
	   as MT_JH_KEYLESS; kept in the aggregation's MT_JR_AGGENT word
	   (which a keyed aggregation does not use otherwise) for the code
	   to try first, the entry it replaces there in the ECB's ecbent as
	   { act | MT_JIT_ECBENT_INTKEYS, offset + 1 } to try next */
	MT_JH_INTKEYS,
	/* void (struct mt_cb *cb, uint32_t ecb, uint32_t act, uint32_t off):
	   aggregation action act of ECB ecb, its recs' values at the CPU's
	   staging record (8 bytes a rec), applied to its entry at offset
	   off - 1 of the CPU's aggregation data (as MT_JH_INTKEYS gives it;
	   off 0: the entry MT_JH_INTKEYS would give): the functions
	   compiled code does not update in place */
	MT_JH_AGGUPD,
	MT_JH__COUNT
};

/*
 * Relocation kind's 4 bytes for target address (or value) v, the field
 * ending at `end`: v + addend, or for a rel32 kind (a call) the
 * displacement from the field's end.  0 if it does not fit in 32 bits
 * (sign-extended), 1 and *out otherwise.  The blob (jitarm.c) and the
 * local target (targets/local/jit.c) place compiled code with it.
 */
static inline int mt_jit_rel_encode(uint32_t kind, uint64_t v, int32_t addend, uint64_t end,
				    int32_t *out)
{
	int64_t d;

	v += (uint64_t)(int64_t)addend;
	d = (int64_t)v;
	if (kind == MT_JR_HELPER || kind == MT_JR_PLAT_EXECNAME)
		d = (int64_t)(v - end);
	if (d != (int32_t)d)
		return 0;
	*out = (int32_t)d;
	return 1;
}

/* A relocation kind whose value may be 0 (others: 0 is "none"). */
static inline int mt_jit_rel_zero_ok(uint32_t kind)
{
	return kind == MT_JR_CPU;
}

#define MT_JH_GAA_STORE	0x80000000u
#define MT_JIT_STRBUF	64
#define MT_JIT_PLATNAME	32
#define MT_JH_STRKEY_PLATNAME	0x80000000u
#define MT_JIT_ECBENT_STRKEY	0x40000000u
#define MT_JIT_ECBENT_INTKEYS	0x20000000u
#define MT_JH_LOAD_SIGNED	0x100
#define MT_JIT_MEMO_SIZE	64
#define MT_JIT_MEMO_SHIFT	6	/* log2 MT_JIT_MEMO_SIZE */
#define MT_JIT_MEMO_N	16
#define MT_JIT_MEMO_TID	16
#define MT_JIT_MEMO_TIDOK	24
#define MT_JIT_MEMO_PID	32
#define MT_JIT_MEMO_PIDOK	40
#define MT_JIT_NLOADABLE	2

#endif
