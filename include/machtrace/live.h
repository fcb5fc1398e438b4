/*
 * The live GNU Mach target ("mach"): D programs run inside a GNU Mach
 * kernel booted in QEMU.  The runtime blob (runtime/kernel, runtime/
 * x86_64) is loaded by the boot shim into a reserved region and started
 * from a boot-time hook; the host writes the kernel description (symbols
 * and DWARF offsets), the probe sites (decided here with the decoder) and
 * the enabling image into shared guest RAM, then drains the buffers from
 * it live.  Probes: dtrace:::BEGIN/END/ERROR (ids 1-3), fbt (ids as
 * `machtrace -l` numbers them), profile:::tick-N/profile-N,
 * kinst::FUNC:OFFSET (any instruction, created on demand) and
 * mach_trap::NAME:entry/return (Mach's traps, from mach_trap_table).
 */
#ifndef MACHTRACE_LIVE_H
#define MACHTRACE_LIVE_H

#include <stddef.h>
#include <stdio.h>
#include "machtrace/mach.h"
#include "machtrace/program.h"

struct mt_live_opts {
	const char *kernel;		/* NULL: the stock kernel */
	const char *kernel_args;	/* NULL: "console=com0" */
	/* Bootstrap modules "PATH args" (verbatim, as mt_boot_opts); none:
	   our machload with `workload` words. */
	const char *modules[MT_USER_MAX_MODULES];
	int nmodules;
	const char *workload;		/* machload words, NULL: its defaults */
	const char *disk;		/* raw disk image on IDE 0, NULL: none */
	int disk_snapshot;		/* the guest's writes are not kept */
	const char *shim;		/* NULL: $BUILD/boot/shim.elf */
	const char *blob;		/* NULL: $BUILD/live/blob.bin */
	unsigned timeout_ms;		/* guest time limit, 0: none */
	unsigned mem_mb;		/* guest RAM, 0: 512 MiB */
	unsigned cpus;			/* guest CPUs, 0: 1 */
	FILE *console;			/* guest console copy, NULL: none */
	const char *console_log;	/* guest console log file, NULL: none */
	uint64_t deadman_ns;		/* host silence the guest tolerates,
					   0: 10 s (as dtrace's deadman) */
	int text_check;			/* after detach, compare the kernel text
					   with the image and report on stderr */
	int verbose;			/* -v: notes on stderr (probes left to
					   the interpreter) */
	int survive;			/* QEMU outlives a killed machtrace */
	int has_target;			/* -c / -p: tracing ends when the task */
	int64_t target_pid;		/* with this pid exits */
	const char *vm;			/* attach to this running VM (machtrace
					   vm start) instead of booting; kernel
					   and modules must be the VM's */
};

/*
 * Compare the kernel text [_start, etext) in a guest RAM file (offset =
 * physical address) with the kernel image.  0 identical, 1 different
 * (*where = first differing address), -1 error (err filled).
 */
int mt_live_text_check(const char *ramfile, const char *kernel, uint64_t *where,
		       uint64_t *len, char *err, size_t errlen);

/*
 * A target for the GNU Mach kernel.  The kernel image is read now (probes
 * need it); QEMU starts at attach.  NULL with err filled on failure.
 */
struct mt_target *mt_mach_target_new(const struct mt_live_opts *o, char *err,
				     size_t errlen);

/*
 * Does the probe description name a kernel provider (so that the session
 * should make the kernel target)?  fbt, kinst, mach_trap; profile/tick
 * only with force.
 */
int mt_live_wants(const char *prov, int force);

/* The GNU Mach kernel as a kind of target (program.h struct
   mt_target_kind): the three functions above, which the session and the
   commands reach only through it. */
extern const struct mt_target_kind mt_mach_kind;

/*
 * Kernel C types for the compiler (DWARF of the target's kernel):
 * mt_live_argtype: the C type of args[i] of a probe ("struct ipc_port *"
 * for fbt/mach_trap entries, the return type as args[1] of returns), NULL
 * when unknown.  mt_live_decls: malloc'd D declarations of the struct,
 * union, enum or typedef that ctype names (what it needs first), NULL when
 * the kernel has no such type.  mt_live_decls_file: the same for several
 * types (one text, each type once) of a kernel image file (tests, tools).
 */
const char *mt_live_argtype(struct mt_target *t, const char *prov, const char *func,
			    const char *name, int i);
/* -d: kinst::FUNC:entry or :return of an inlined FUNC, or line probes,
   as the probe descriptions of their sites (kinst::CALLER:OFFSET of
   each copy or place, fbt's of the out-of-line copy), comma-separated
   and malloc'd; NULL when pd names no such probe. */
char *mt_live_expand(struct mt_target *t, const struct mt_pdesc *pd);
/* SDT probes: the native C type of args[i] when args[i] is translated
   (mt_live_argtype gives the translated type, declared by the kernel D
   library mach.d), NULL otherwise: struct mt_ctypes argnative. */
/* Why args[i] of kinst::FUNC:entry of an inlined FUNC is missing (struct
   mt_ctypes argmissing): malloc'd, NULL when it is not. */
char *mt_live_argmissing(struct mt_target *t, const char *prov, const char *func,
			 const char *name, int i);
const char *mt_live_argnative(struct mt_target *t, const char *prov, const char *func,
			      const char *name, int i);
/* How many args[] a probe has (fbt/mach_trap entry: the function's
   parameters; return: 2, or 1 for a void function), -1 when unknown
   (globs, varargs, no DWARF, other providers). */
int mt_live_nargs(struct mt_target *t, const char *prov, const char *func,
		  const char *name);
char *mt_live_decls(struct mt_target *t, const char *ctype);
/* locals->var at a probe (struct mt_ctypes local): malloc'd D expression
   and C type (*ctype, malloc'd); NULL with err when the probe is no single
   fbt entry, kinst or line site or var has no location there. */
char *mt_live_local(struct mt_target *t, const struct mt_pdesc *pd, const char *var,
		    char **ctype, char *err, size_t errlen);
/* print(locals) (struct mt_ctypes local_names): the names of the locals
   that have a location at the probe (each one mt_live_local reads),
   innermost first, NULL-terminated and malloc'd (mt_live_free_names),
   and the site as FUNC+0xOFF in site; NULL with err as mt_live_local. */
char **mt_live_local_names(struct mt_target *t, const struct mt_pdesc *pd, char *site,
			   size_t sitelen, char *err, size_t errlen);
void mt_live_free_names(char **v);
/* A kernel global variable (`name or gnumach`name): its address from the
   symbol table and malloc'd C type from DWARF; NULL when unknown. */
char *mt_live_symbol(struct mt_target *t, const char *mod, const char *name,
		     uint64_t *addr);
char *mt_live_decls_file(const char *kernel, const char *const *ctypes, int n,
			 char *err, size_t errlen);

/*
 * The kernel D library (targets/mach/lib/mach.d, embedded): D declarations
 * compiled before every program that runs in the GNU Mach kernel:
 * psinfo_t, lwpsinfo_t, cpuinfo_t, their translators from struct task,
 * struct thread and struct processor, curpsinfo, curlwpsinfo, curcpu.
 * *name gets the name errors in it are reported with.
 */
const char *mt_live_dlib(const char **name);

#endif /* MACHTRACE_LIVE_H */
