/*
 * Statically defined probes of the live target (sched, proc, ipc, vm):
 * providers whose probes have stable names and typed arguments whatever
 * GNU Mach's internals are, placed at sites found in the running kernel's
 * text.  GNU Mach has no DTRACE_PROBE macros, so each probe names where it
 * fires (a function's entry or returns, a call to some function from it,
 * or the instruction after such a call) and how its arguments come from
 * the site's raw arguments (dtrace's SDT model: a native type, the
 * translated type args[i] has, and the raw argument it maps from).
 *
 * A probe's `func` is where it fires, as in DTrace (sched:gnumach:
 * switch_context:off-cpu); a provider table may give one name several
 * probes, one per function, so that each probe has one argument mapping.
 * A probe without func (counter increments anywhere in the text) becomes
 * one probe per function holding its sites.
 *
 * Two site sources are computed rather than read from registers: an
 * SDT_COUNTER site's raw arguments (the increment and the counter's
 * address, decoded on the host), and an MT_ARGMAP_ELAPSED argument (the
 * time since the current thread passed a site of its provider's `stamp`
 * probes, which are then planted to stamp even when not enabled).
 */
#ifndef TARGET_LIVE_SDT_H
#define TARGET_LIVE_SDT_H

#include <stdint.h>
#include "machtrace/lkabi.h"

enum sdt_where {
	SDT_ENTRY = 1,		/* the entry of func (raw args: its arguments) */
	SDT_RETURN,		/* each return of func (raw arg1: the value) */
	SDT_CALL,		/* each call of `callee` in func, before it
				   (raw args: the callee's arguments) */
	SDT_AFTER_CALL,		/* the instruction after each such call
				   (no raw arguments) */
	SDT_MEMBER_INC,		/* each increment in func of member
				   `callee` ("task.messages_received", a
				   path: "ipc_port.ip_seqno") of a struct
				   reached through a register (an add, or
				   a load stored back +1), before it;
				   "A>B": only the increments of A whose
				   old value is then stored to member B
				   too (`k->seqno = p->seq++`) */
	SDT_MEMBER_USE,		/* each instruction in func with member
				   `callee` as a memory operand */
	SDT_COUNTER,		/* each instruction adding a constant to
				   `counter` (func NULL: anywhere in the
				   kernel's text), before it (raw arg0: the
				   increment, arg1: the counter's address) */
	SDT_NOTE,		/* a kernel's own <sys/sdt.h> nop, from its
				   .note.stapsdt (prov_ksdt.c; raw args: the
				   note's operands) */
	SDT_INLINE_ENTRY,	/* kinst::FUNC:entry of an inlined copy of
				   FUNC in f (kinline.c; no raw arguments) */
	SDT_INLINE_EXIT,	/* kinst::FUNC:return: where such a copy's
				   code falls through to its caller's */
	SDT_LINE,		/* line:FILE:FUNC:N at one of the places
				   of a line (prov_line.c) */
	SDT_SPIN,		/* lockstat's spin-acquire and spin-spin on an
				   inlined simple lock (prov_spin.c; raw arg0:
				   the lock, its operand's address) */
};

#define SDT_MAXSITES	6
#define SDT_MAXARGS	6
#define SDT_MAXVARS	4	/* LK_SITE_NREGARGS */
/* instructions of a function decoded for its sites or kinst probes
   (mach_msg_trap: ~1700) */
#define SDT_MAXINSNS	8192

/*
 * A site's raw arguments are, by default, its kind's (above).  A site
 * inside a function may name them instead: vars[i] is raw argument i,
 * a variable or parameter of func that DWARF places in a register at
 * the site ("$curthread": the current thread; NULL after the first: 0).
 * Where DWARF has no register for VAR at the site (GCC 16 loses some),
 * "VAR|FALLBACK" follows the code from the site to where the value goes
 * next (sdtinsn.c), FALLBACK one of: "*", the value stored through a
 * pointer (`*outp = VAR`, as a function returning VAR through an
 * out-parameter does); "FUNC" or "FUNC:N", the value passed as FUNC's
 * first (N-th, from 0) argument at its next call; "&struct.member", the
 * pointer through which that member is stored next (`VAR->m = x`).  A
 * site whose variables are not all in registers there is not used, and
 * sdt.c says why.
 */
struct sdt_site {
	const char *func;	/* a kernel function */
	uint8_t where;		/* SDT_* */
	const char *callee;	/* SDT_CALL, SDT_AFTER_CALL: the callee;
				   SDT_COUNTER: the counter, a global
				   ("vm_page_free_count") or a member of a
				   global struct ("vm_stat.pageins") */
	const char *vars[SDT_MAXVARS];	/* instruction sites; NULL: default */
};

struct sdt_arg {
	uint8_t raw;		/* the site's raw argument (arg0..arg9), or
				   MT_ARGMAP_CURTHREAD (abi.h) */
	const char *native;	/* its C type ("struct thread *") */
	const char *xlate;	/* args[i]'s type when translated
				   ("lwpsinfo_t *"), NULL: native */
};

struct sdt_probe {
	const char *func, *name;	/* the probe's func and name */
	struct sdt_site sites[SDT_MAXSITES];
	struct sdt_arg args[SDT_MAXARGS];
	const char *doc;		/* one line for docs and -lv */
};

struct sdt_provider {
	const char *name;
	const struct sdt_probe *probes;
	uint32_t nprobes;
	/* an argument MT_ARGMAP_ELAPSED (abi.h) of this provider's probes
	   is the time since the current thread last passed a site of the
	   probes named `stamp`: those sites then stamp it (LK_SF_STAMP) */
	const char *stamp;
};

/* One resolved site of an SDT probe (struct lprobe's locs). */
struct sdt_loc {
	uint64_t addr;			/* the instruction, or f's entry */
	const struct mt_kfunc *f;	/* the function holding it */
	const struct sdt_site *site;	/* what found it (-lv) */
	uint8_t where;			/* SDT_* */
	uint8_t regargs;		/* argreg[] gives the raw arguments */
	uint8_t argreg[SDT_MAXVARS];	/* lkabi.h LK_SF_REGARGS */
	uint8_t fellback;		/* bit i: raw argument i came from its
					   variable's "|*" fallback */
	int32_t inc;			/* SDT_COUNTER: the increment */
	uint64_t counter;		/* SDT_COUNTER: the counter's address */
	const struct lk_uarg *uargs;	/* a <sys/sdt.h> note's site (prov_ksdt.c):
					   its operands, nuargs of them */
	uint8_t nuargs;
};

/*
 * A probe of the tables with a site that resolved to nothing in this
 * kernel: not placed at all (placed 0: not listed) or placed without
 * that site (an undercount).  Either is warned about once, naming the
 * probe and why, when a program names it.
 */
struct sdt_miss {
	const char *prov, *func, *name;	/* func NULL: a counter's probes */
	int placed;
	int warned;
	char why[160];
};

#endif
