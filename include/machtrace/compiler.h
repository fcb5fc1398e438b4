/*
 * The D compiler: source text to struct mt_prog.  Host code only; a library:
 * it reports errors through struct mt_diag and never exits or prints.
 */
#ifndef MACHTRACE_COMPILER_H
#define MACHTRACE_COMPILER_H

#include <stddef.h>
#include <stdio.h>
#include "machtrace/program.h"
#include "machtrace/options.h"

/* One program text: a -s script file or a -n probe specifier. */
struct mt_cc_src {
	const char *text;		/* NUL-terminated */
	const char *name;		/* script path, or the -n text itself */
	int is_pspec;			/* -n: a probe description (+ clause) */
};

struct mt_cc_input {
	const struct mt_cc_src *srcs;	/* compiled into one program, in order */
	int nsrcs;
	int cpp;			/* -C: run cpp first */
	const char *const *cpp_args;	/* -D/-U/-I as given, e.g. "-DFOO=1" */
	int ncpp_args;
	const char *const *macro_args;	/* $0.. $N: script arguments */
	int nmacro_args;
	int64_t target;			/* $target: -c's or -p's pid, else 0 */
	const struct mt_opts *opts;	/* strsize, defaultargs, zdefs, ... */
	unsigned flags;			/* MT_CC_* */
	const struct mt_ctypes *ctypes;	/* typed args[] (kernel targets), or NULL */
	/* D libraries compiled before srcs, as dtrace compiles its
	   /usr/lib/dtrace/ libraries (the kernel's mach.d): their declarations,
	   translators and inlines are the program's; none: NULL, 0 */
	const struct mt_cc_src *libs;
	int nlibs;
	/* -d (MT_CC_DUMP): a probe description as the target rewrites it
	   (kinst::FUNC:entry of an inlined FUNC: the kinst::CALLER:OFFSET
	   probes of its copies), malloc'd; NULL: as it is (may be NULL) */
	char *(*expand)(void *arg, const char *pdesc);
	void *expand_arg;
};

/*
 * Types of a target's probe arguments (e.g. from a kernel's DWARF).
 * argtype() names the C type of args[i] for a probe description ("struct
 * ipc_kmsg *"), NULL when unknown; args[i] of a clause gets that type when
 * every description of the clause agrees, int64_t otherwise.  decls()
 * returns malloc'd D declarations of whatever the type needs (dependencies
 * first), compiled the first time an unknown or incomplete type is named;
 * NULL when it has none.
 */
struct mt_ctypes {
	void *arg;
	const char *(*argtype)(void *arg, const char *prov, const char *mod,
			       const char *func, const char *name, int i);
	char *(*decls)(void *arg, const char *ctype);
	/* how many args[] the probe has, -1 when unknown (may be NULL);
	   a constant args[N] beyond it is refused (D_ARGS_IDX) */
	int (*nargs)(void *arg, const char *prov, const char *mod,
		     const char *func, const char *name);
	/* a kernel global (`name, mod`name; mod NULL for the first): its
	   address and malloc'd C type; NULL when unknown, with *addr 0 for
	   no such symbol and its address for a symbol of no known type
	   (may be NULL) */
	char *(*symbol)(void *arg, const char *mod, const char *name,
			uint64_t *addr);
	/*
	 * Translated arguments (dtrace's SDT model, may be NULL): the
	 * native C type of args[i] ("struct thread *") when the provider
	 * translates it, argtype() then naming the translated type
	 * ("lwpsinfo_t *"); NULL when args[i] is not translated.  args[i]
	 * then means xlate<TRANSLATED>((NATIVE)args[i]), with a translator
	 * the program or the target's D library declares; as for argtype,
	 * only when every description of the clause agrees.
	 */
	const char *(*argnative)(void *arg, const char *prov, const char *mod,
				 const char *func, const char *name, int i);
	/*
	 * locals->var (may be NULL): a malloc'd D expression for the local
	 * variable or parameter var at the probe, with its malloc'd C type
	 * in *ctype; NULL with a message in err when it has none there.
	 */
	char *(*local)(void *arg, const char *prov, const char *mod,
		       const char *func, const char *name, const char *var,
		       char **ctype, char *err, size_t errlen);
	/*
	 * print(locals) (may be NULL): the names of the locals that have a
	 * location at the probe (each one local() reads), innermost scope
	 * first, malloc'd and NULL-terminated (each name malloc'd), with the
	 * site as FUNC+0xOFF in site; NULL with a message in err when the
	 * probe has no locals.
	 */
	/*
	 * Why args[i] of a probe is missing although the function has that
	 * parameter (may be NULL): a malloc'd message, NULL when nothing
	 * more than "out of range" can be said.
	 */
	char *(*argmissing)(void *arg, const char *prov, const char *mod,
			    const char *func, const char *name, int i);
	char **(*local_names)(void *arg, const char *prov, const char *mod,
			      const char *func, const char *name, char *site,
			      size_t sitelen, char *err, size_t errlen);
};

#define MT_CC_COMPILE_ONLY	0x1	/* -e */
#define MT_CC_DUMP		0x2	/* -d: struct mt_prog's dump */

/*
 * A diagnostic as dtrace reports it.  The CLI prints, for a script,
 *   dtrace: failed to compile script NAME: [TAG] line N: MSG
 * and for a probe specifier
 *   dtrace: invalid probe specifier TEXT: [TAG] line N: MSG
 * ("[TAG] " only with -xerrtags; "line N: " only when line > 0).
 */
struct mt_diag {
	const char *tag;		/* tag name: mt_dtag_name(), or NULL */
	int line;			/* 0 if none */
	int src;			/* index of the mt_cc_src at fault, -1 none */
	char msg[1024];
	const char *lib;		/* the D library at fault (its name), or NULL */
};

struct mt_prog *mt_compile(const struct mt_cc_input *in, struct mt_diag *diag);

/* -S: print the program's bytecode (dtrace's DIFO listing style). */
void mt_disasm(const struct mt_prog *prog, FILE *out);

#endif /* MACHTRACE_COMPILER_H */
