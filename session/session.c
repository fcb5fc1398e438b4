/*
 * The session's target side: the target rule, the kernel target the
 * compiler asks for C types (struct mt_ctypes), the compilation with the
 * kernel D library, and the choice of the target that runs a program.
 *
 * The target is chosen from the program's probe descriptions, but args[]
 * must be typed while compiling: the kernel target is therefore created
 * on the compiler's first question about a kernel provider's arguments
 * (it only reads the kernel image; QEMU starts at attach) and
 * mt_session_target() hands it over.
 */
#include <stdlib.h>
#include <string.h>
#include "machtrace/errtags.h"
#include "machtrace/session.h"
#include "session/internal.h"


/* The kernel target; quiet: no message when the kernel cannot be read. */
static struct mt_target *
new_kernel(const struct mt_session *s, int quiet)
{
	struct mt_target *t;
	char err[512];

	err[0] = '\0';
	if ((t = mt_mach_kind.create(&s->live, err, sizeof(err))) == NULL && !quiet)
		fprintf(s->err, "dtrace: failed to initialize dtrace: %s\n", err);
	return t;
}

struct mt_target *
mt_session_catalog(struct mt_session *s, char *err, size_t errlen)
{
	struct mt_live_opts lo;

	memset(&lo, 0, sizeof(lo));
	lo.kernel = s->live.kernel;
	err[0] = '\0';
	return mt_mach_kind.create(&lo, err, errlen);
}

/* The kernel's probe catalog: the kernel target, created quietly. */
static struct mt_target *
kernel_catalog(struct mt_session *s)
{
	if (s->kernel == NULL && !s->failed)
		s->kernel = new_kernel(s, 1);
	return s->kernel;
}

int
mt_session_count_cb(void *arg, const struct mt_probe_info *p)
{
	(void)p;
	++*(int *)arg;
	return 0;
}

/* Does the local target have a probe matching pd (creating tick-N...)? */
static int
local_matches(const struct mt_pdesc *pd)
{
	struct mt_target *t = mt_local_target_new();
	int n = 0;

	if (t == NULL)
		return 0;
	t->ops->probes(t, pd, 1, mt_session_count_cb, &n);
	mt_target_free(t);
	return n > 0;
}

int
mt_session_desc_wants_kernel(struct mt_session *s, const struct mt_pdesc *pd)
{
	const char *prov = pd->prov ? pd->prov : "";
	struct mt_target *t;
	int n = 0;

	if (mt_mach_kind.claims(prov, s->force))
		return 1;
	if (s->force || (prov[0] != '\0' && strcmp(prov, "*") != 0) ||
	    local_matches(pd))
		return 0;
	if ((t = kernel_catalog(s)) != NULL) {
		s->seen = 1;
		t->ops->probes(t, pd, 0, mt_session_count_cb, &n);
	}
	return n > 0;
}

int
mt_session_wants_kernel(struct mt_session *s, const struct mt_prog *prog)
{
	for (uint32_t i = 0; i < prog->nclauses; i++) {
		const struct mt_clause_info *ci = &prog->clause_info[i];

		for (uint32_t j = 0; j < ci->npdescs; j++)
			if (mt_session_desc_wants_kernel(s, &ci->pdescs[j]))
				return 1;
	}
	return 0;
}

/* The kernel target for a kernel description's question, created once. */
static struct mt_target *
kernel_for(struct mt_session *s, const char *prov, const char *mod,
	   const char *func, const char *name)
{
	struct mt_pdesc pd = { (char *)prov, (char *)mod, (char *)func,
			       (char *)name, 0 };

	if (!mt_session_desc_wants_kernel(s, &pd))
		return NULL;
	if (s->kernel == NULL && !s->failed &&
	    (s->kernel = new_kernel(s, 0)) == NULL)
		s->failed = 1;
	s->seen |= s->kernel != NULL;
	return s->kernel;
}

/* The target's answers to the compiler (mt_target_ops ctypes), in buf;
   NULL without a target or answers. */
static const struct mt_ctypes *
answers(struct mt_target *t, struct mt_ctypes *buf)
{
	if (t == NULL || t->ops->ctypes == NULL)
		return NULL;
	t->ops->ctypes(t, buf);
	return buf;
}

/* The kernel target's answers to a question about a probe, if its. */
static const struct mt_ctypes *
kernel_answers(void *arg, const char *prov, const char *mod, const char *func,
	       const char *name, struct mt_ctypes *b)
{
	return answers(kernel_for(arg, prov, mod, func, name), b);
}

static const char *
k_argtype(void *arg, const char *prov, const char *mod, const char *func,
	  const char *name, int i)
{
	struct mt_ctypes b;
	const struct mt_ctypes *ct = kernel_answers(arg, prov, mod, func, name, &b);

	return ct && ct->argtype ? ct->argtype(ct->arg, prov, mod, func, name, i) : NULL;
}

static const char *
k_argnative(void *arg, const char *prov, const char *mod, const char *func,
	    const char *name, int i)
{
	struct mt_ctypes b;
	const struct mt_ctypes *ct = kernel_answers(arg, prov, mod, func, name, &b);

	return ct && ct->argnative ? ct->argnative(ct->arg, prov, mod, func, name, i) :
		NULL;
}

static int
k_nargs(void *arg, const char *prov, const char *mod, const char *func,
	const char *name)
{
	struct mt_ctypes b;
	const struct mt_ctypes *ct = kernel_answers(arg, prov, mod, func, name, &b);

	return ct && ct->nargs ? ct->nargs(ct->arg, prov, mod, func, name) : -1;
}

static char *
k_argmissing(void *arg, const char *prov, const char *mod, const char *func,
	     const char *name, int i)
{
	struct mt_ctypes b;
	const struct mt_ctypes *ct = kernel_answers(arg, prov, mod, func, name, &b);

	return ct && ct->argmissing ? ct->argmissing(ct->arg, prov, mod, func, name, i) :
		NULL;
}

/* locals (->var, print(locals)): the kernel's answers, or NULL with err. */
static const struct mt_ctypes *
locals_answers(void *arg, const char *prov, const char *mod, const char *func,
	       const char *name, struct mt_ctypes *b, char *err, size_t errlen)
{
	const struct mt_ctypes *ct = kernel_answers(arg, prov, mod, func, name, b);

	if (ct && ct->local && ct->local_names)
		return ct;
	snprintf(err, errlen, "locals is available in kernel probes only");
	return NULL;
}

static char *
k_local(void *arg, const char *prov, const char *mod, const char *func,
	const char *name, const char *var, char **ctype, char *err,
	size_t errlen)
{
	struct mt_ctypes b;
	const struct mt_ctypes *ct = locals_answers(arg, prov, mod, func, name, &b,
						    err, errlen);

	return ct ? ct->local(ct->arg, prov, mod, func, name, var, ctype, err, errlen) :
		NULL;
}

static char **
k_local_names(void *arg, const char *prov, const char *mod, const char *func,
	      const char *name, char *site, size_t sitelen, char *err,
	      size_t errlen)
{
	struct mt_ctypes b;
	const struct mt_ctypes *ct = locals_answers(arg, prov, mod, func, name, &b,
						    err, errlen);

	return ct ? ct->local_names(ct->arg, prov, mod, func, name, site, sitelen,
				    err, errlen) : NULL;
}

/* Kernel globals: only once a kernel clause created the target. */
static char *
k_symbol(void *arg, const char *mod, const char *name, uint64_t *addr)
{
	struct mt_session *s = arg;
	struct mt_ctypes b;
	const struct mt_ctypes *ct = answers(s->kernel, &b);

	return ct && ct->symbol ? ct->symbol(ct->arg, mod, name, addr) : NULL;
}

static char *
k_decls(void *arg, const char *ctype)
{
	struct mt_session *s = arg;
	struct mt_ctypes b;
	const struct mt_ctypes *ct = answers(s->kernel, &b);

	return ct && ct->decls ? ct->decls(ct->arg, ctype) : NULL;
}

/* -d: a description as the kernel target expands it (kinst's inlined
   functions: kinline.c). */
static char *
k_expand(void *arg, const char *pdesc)
{
	char *str = strdup(pdesc), *x = NULL;
	struct mt_pdesc pd;
	struct mt_target *t;

	if (str && mt_pdesc_split(str, &pd) <= 4 &&
	    (t = kernel_for(arg, pd.prov, pd.mod, pd.func, pd.name)) != NULL &&
	    t->ops->expand)
		x = t->ops->expand(t, &pd);
	free(str);
	return x;
}

struct mt_session *
mt_session_open(const struct mt_live_opts *live, int force, FILE *err)
{
	struct mt_session *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->live = *live;
	s->force = force;
	s->err = err;
	s->ctypes.arg = s;
	s->ctypes.argtype = k_argtype;
	s->ctypes.decls = k_decls;
	s->ctypes.nargs = k_nargs;
	s->ctypes.symbol = k_symbol;
	s->ctypes.argnative = k_argnative;
	s->ctypes.local = k_local;
	s->ctypes.local_names = k_local_names;
	s->ctypes.argmissing = k_argmissing;
	return s;
}

void
mt_session_close(struct mt_session *s)
{
	if (s == NULL)
		return;
	mt_target_free(s->kernel);
	free(s);
}

FILE *
mt_session_err(const struct mt_session *s)
{
	return s->err;
}

static struct mt_prog *
compile_lib(struct mt_session *s, struct mt_cc_input *in, struct mt_diag *diag,
	    int lib)
{
	struct mt_cc_src libsrc = { NULL, NULL, 0 };
	struct mt_prog *prog;

	in->ctypes = &s->ctypes;
	if (in->flags & MT_CC_DUMP) {
		in->expand = k_expand;
		in->expand_arg = s;
	}
	in->libs = NULL;
	in->nlibs = 0;
	/* the kernel target exists by then (mt_session_compile) */
	if (lib && s->kernel && s->kernel->ops->dlib &&
	    (libsrc.text = s->kernel->ops->dlib(s->kernel, &libsrc.name)) != NULL) {
		in->libs = &libsrc;
		in->nlibs = 1;
	}
	prog = mt_compile(in, diag);
	in->libs = NULL;
	in->nlibs = 0;
	return prog;
}

/* A cpp failure (no tag, or D_PREPROC): compiling again would print its
   errors twice. */
static int
cpp_failed(const struct mt_diag *d)
{
	return d->tag == NULL || strcmp(d->tag, mt_dtag_name(D_PREPROC)) == 0;
}

/*
 * Does a -n's probe description (its text up to "{" or "/", known before
 * compiling) belong to the kernel?  A hint only: the compiled clauses
 * decide.
 */
static int
kernel_pspec(struct mt_session *s, const struct mt_cc_input *in)
{
	int wants = 0;

	for (int i = 0; i < in->nsrcs && !wants; i++) {
		char *text, *d, *next;
		struct mt_pdesc pd;

		if (!in->srcs[i].is_pspec || (text = strdup(in->srcs[i].text)) == NULL)
			continue;
		text[strcspn(text, "{/")] = '\0';
		for (d = text; d && !wants; d = next) {
			if ((next = strchr(d, ',')) != NULL)
				*next++ = '\0';
			d += strspn(d, " \t\n");
			d[strcspn(d, " \t\n")] = '\0';
			wants = *d && mt_pdesc_split(d, &pd) <= 4 &&
				mt_session_desc_wants_kernel(s, &pd);
		}
		free(text);
	}
	return wants;
}

/*
 * Which target runs the program is known from its clauses, so the program
 * is compiled alone first; when it has kernel clauses it is compiled
 * again after the library, and that result (or error) counts.  A program
 * that fails alone may need the library (curpsinfo, psinfo_t): it is
 * tried with it, and that result counts when it compiles to kernel
 * clauses, or when a kernel clause was seen: then its error (the
 * library's or the program's, e.g. a member psinfo_t lacks) is the one to
 * report.  Not after a cpp failure (cpp would print its errors twice).
 *
 * When the kernel is forced, or a -n names a kernel probe, the program is
 * compiled after the library first: a program of kernel clauses is then
 * compiled once.  Any other result takes the way above, with the
 * library's result already known.
 */
struct mt_prog *
mt_session_compile(struct mt_session *s, struct mt_cc_input *in,
		   struct mt_diag *diag)
{
	struct mt_prog *prog, *p2 = NULL;
	struct mt_diag d2;
	int kernel_seen, seen = s->seen, tried = 0;

	if ((s->force || kernel_pspec(s, in)) && !s->failed && kernel_catalog(s)) {
		p2 = compile_lib(s, in, &d2, 1);
		if (p2 ? mt_session_wants_kernel(s, p2) : cpp_failed(&d2)) {
			*diag = d2;
			return p2;
		}
		tried = p2 == NULL;	/* it failed: that is the library's error */
		mt_prog_free(p2);
		p2 = NULL;
	}
	/* what the program alone asks of the kernel, as if not tried above */
	s->seen = seen;
	prog = compile_lib(s, in, diag, 0);
	kernel_seen = s->seen;
	if (prog ? !mt_session_wants_kernel(s, prog) : cpp_failed(diag))
		return prog;
	if (s->kernel == NULL && !s->failed &&
	    (s->kernel = new_kernel(s, prog == NULL)) == NULL)
		s->failed = prog != NULL;
	if (s->kernel == NULL)
		return prog;
	if (prog) {
		mt_prog_free(prog);
		if (!tried)
			return compile_lib(s, in, diag, 1);
		*diag = d2;
		return NULL;
	}
	if (!tried)
		p2 = compile_lib(s, in, &d2, 1);
	if (p2 && mt_session_wants_kernel(s, p2)) {
		*diag = d2;
		return p2;
	}
	mt_prog_free(p2);
	if (!p2 && kernel_seen)
		*diag = d2;
	return NULL;
}

static int
kernel_only_rec(const struct mt_rec_info *ri, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (ri[i].kind == MT_TI_STACK || ri[i].kind == MT_TI_SYM ||
		    ri[i].kind == MT_TI_MOD)
			return 1;
	return 0;
}

/* The first value prog reads that describes the kernel, or NULL. */
static const char *
kernel_value(const struct mt_prog *prog)
{
	int profile = 0;

	for (uint32_t i = 0; i < prog->nclauses; i++)
		for (uint32_t j = 0; j < prog->clause_info[i].npdescs; j++) {
			const char *nm = prog->clause_info[i].pdescs[j].name;
			profile |= nm && strncmp(nm, "profile-", 8) == 0;
		}
	for (uint32_t i = 0; i < prog->ntext; i++) {
		mt_instr_t in = prog->text[i];
		uint32_t op = in >> 24, v = (in >> 8) & 0xffff;

		if (op != MT_OP_LDGS)
			continue;
		if (v == MT_VAR_CURTHREAD)
			return "curthread";
		if (v == MT_VAR_CALLER)
			return "caller";
		if (v == MT_VAR_STACKDEPTH)
			return "stackdepth";
		if (profile && (v == MT_VAR_ARG0 || v == MT_VAR_ARG1))
			return "a profile probe's arg0/arg1";
	}
	if (kernel_only_rec(prog->rec_info, prog->nrecs))
		return "stack(), func(), sym() or mod()";
	for (uint32_t i = 0; i < prog->naggs; i++)
		if (kernel_only_rec(prog->agg_info[i].keys, prog->agg_info[i].nkeys))
			return "stack(), func(), sym() or mod()";
	return NULL;
}

/*
 * On the local target the probes fire in machtrace itself: curthread,
 * caller, stackdepth, stack(), func()/sym()/mod() and a profile probe's
 * arg0 (the interrupted kernel pc) have no kernel to describe.  The local
 * target says so once, with the way to trace the kernel instead.
 */
struct mt_target *
mt_session_target(struct mt_session *s, const struct mt_prog *prog)
{
	struct mt_target *t;
	const char *what;

	if (!mt_session_wants_kernel(s, prog)) {
		if ((what = kernel_value(prog)) != NULL)
			fprintf(s->err, "dtrace: warning: this program runs on the "
				"local target (its probes fire in machtrace, not in GNU "
				"Mach), where %s describes no kernel; add --mach to run "
				"it in the kernel\n", what);
		if ((t = mt_local_target_new()) == NULL)
			fprintf(s->err, "dtrace: failed to initialize dtrace: "
				"cannot create the local target\n");
		return t;
	}
	if (s->failed)
		return NULL;
	if ((t = s->kernel) != NULL) {
		s->kernel = NULL;
		s->seen = 0;
		return t;
	}
	return new_kernel(s, 0);
}
