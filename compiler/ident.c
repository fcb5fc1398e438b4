/*
 * Identifiers: scopes (globals, self->, this->, aggregations), the built-in
 * variables, subroutines, actions and aggregating functions with their
 * prototypes, and the $macro variables.
 *
 * A prototype is a string of comma-separated parameter types as dtrace
 * prints them; "@" means any type; "..." any further arguments; a
 * parameter in [brackets] is optional.
 */
#include <string.h>
#include <unistd.h>
#include "cc.h"

static int ident_eq(const void *name, uintptr_t val)
{
	return strcmp(((const struct ident *)val)->name, name) == 0;
}

struct ident *id_lookup(struct scope *s, const char *name)
{
	return (struct ident *)mt_hmap_find(&s->map, mt_hash_str(name),
					    ident_eq, name);
}

struct ident *id_add(struct cc *cc, struct scope *s, const char *name,
		     enum idkind k)
{
	struct ident *i = cc_alloc(cc, sizeof(*i));
	uint64_t h = mt_hash_str(name);
	/* a pending #pragma applies to the next global of its name */
	for (struct binding **b = &cc->bindings; s == &cc->globals && *b;
	     b = &(*b)->next)
		if (strcmp((*b)->name, name) == 0) {
			i->has_attr = (*b)->has_attr;
			i->attr = (*b)->attr;
			*b = (*b)->next;
			break;
		}
	i->name = cc_strdup(cc, name);
	i->k = k;
	i->outside = !cc->in_prog;
	i->is_assoc = -1;
	i->varidx = -1;
	if ((i->shadow = id_lookup(s, name)) != NULL)
		mt_hmap_del(&s->map, h, (uintptr_t)i->shadow);
	if (mt_hmap_put(&s->map, h, (uintptr_t)i) != 0)
		abort();	/* as cc_alloc does */
	return i;
}

/* Take id out of the scope (an inline's parameters after its body). */
void id_remove(struct scope *s, struct ident *id)
{
	uint64_t h = mt_hash_str(id->name);
	struct ident *p = id_lookup(s, id->name);

	if (p == id) {
		mt_hmap_del(&s->map, h, (uintptr_t)id);
		if (id->shadow && mt_hmap_put(&s->map, h, (uintptr_t)id->shadow) != 0)
			abort();
		return;
	}
	for (; p && p->shadow != id; p = p->shadow)
		;
	if (p)
		p->shadow = id->shadow;
}

static const struct {
	const char *name;
	int id;
	const char *type;
} bvars[] = {
	{"args", MT_VAR_ARGS, "int64_t"},
	{"regs", MT_VAR_REGS, "uint64_t"},
	{"uregs", MT_VAR_UREGS, "uint64_t"},
	{"curthread", MT_VAR_CURTHREAD, "void *"},
	{"timestamp", MT_VAR_TIMESTAMP, "uint64_t"},
	{"vtimestamp", MT_VAR_VTIMESTAMP, "uint64_t"},
	{"ipl", MT_VAR_IPL, "uint_t"},
	{"epid", MT_VAR_EPID, "uint_t"},
	{"id", MT_VAR_ID, "uint_t"},
	{"arg0", MT_VAR_ARG0, "int64_t"}, {"arg1", MT_VAR_ARG1, "int64_t"},
	{"arg2", MT_VAR_ARG2, "int64_t"}, {"arg3", MT_VAR_ARG3, "int64_t"},
	{"arg4", MT_VAR_ARG4, "int64_t"}, {"arg5", MT_VAR_ARG5, "int64_t"},
	{"arg6", MT_VAR_ARG6, "int64_t"}, {"arg7", MT_VAR_ARG7, "int64_t"},
	{"arg8", MT_VAR_ARG8, "int64_t"}, {"arg9", MT_VAR_ARG9, "int64_t"},
	{"stackdepth", MT_VAR_STACKDEPTH, "uint32_t"},
	{"caller", MT_VAR_CALLER, "uintptr_t"},
	{"probeprov", MT_VAR_PROBEPROV, "string"},
	{"probemod", MT_VAR_PROBEMOD, "string"},
	{"probefunc", MT_VAR_PROBEFUNC, "string"},
	{"probename", MT_VAR_PROBENAME, "string"},
	{"pid", MT_VAR_PID, "pid_t"},
	{"tid", MT_VAR_TID, "id_t"},
	{"execname", MT_VAR_EXECNAME, "string"},
	{"zonename", MT_VAR_ZONENAME, "string"},
	{"walltimestamp", MT_VAR_WALLTIMESTAMP, "int64_t"},
	{"ustackdepth", MT_VAR_USTACKDEPTH, "uint32_t"},
	{"ucaller", MT_VAR_UCALLER, "uint64_t"},
	{"ppid", MT_VAR_PPID, "pid_t"},
	{"uid", MT_VAR_UID, "uid_t"},
	{"gid", MT_VAR_GID, "gid_t"},
	{"errno", MT_VAR_ERRNO, "int"},
	{"curcpu", MT_VAR_CURCPU, "void *"},
	{"cpu", MT_VAR_CPU, "processorid_t"},
	{"execargs", MT_VAR_EXECARGS, "string"},
	{"task", MT_VAR_TASK, "void *"},
};

/*
 * Functions: kind, id (MT_SUBR_*, MT_ACT_*, MT_AGG_*), return, params.
 * dtrace declares string parameters "const char *" but prints them in a
 * D_PROTO_ARG message as "char *": the params are written as it prints them.
 */
struct fdef {
	const char *name;
	enum idkind k;
	int id;
	const char *ret;
	const char *proto;
};

#define S(n, id, r, p)	{ n, ID_SUBR, MT_SUBR_##id, r, p }
#define A(n, id, p)	{ n, ID_ACTF, id, "void", p }
#define G(n, id, p)	{ n, ID_AGGF, MT_AGG_##id, "void", p }

/* pseudo action ids beyond the image's kinds */
enum { AF_SPECULATE = 1000, AF_STACK_VALUE, AF_SYM, AF_FUNC, AF_MOD,
       AF_USYM, AF_UFUNC, AF_UMOD, AF_UADDR, AF_USTACK, AF_JSTACK };

static const struct fdef fdefs[] = {
	S("rand", RAND, "int", ""),
	S("mutex_owned", MUTEX_OWNED, "int", "struct mutex *"),
	S("mutex_owner", MUTEX_OWNER, "struct task_struct *", "struct mutex *"),
	S("mutex_type_adaptive", MUTEX_TYPE_ADAPTIVE, "int", "struct mutex *"),
	S("mutex_type_spin", MUTEX_TYPE_SPIN, "int", "struct mutex *"),
	S("rw_read_held", RW_READ_HELD, "int", "rwlock_t *"),
	S("rw_write_held", RW_WRITE_HELD, "int", "rwlock_t *"),
	S("rw_iswriter", RW_ISWRITER, "int", "rwlock_t *"),
	S("copyin", COPYIN, "void *", "uintptr_t, size_t"),
	S("copyinstr", COPYINSTR, "string", "uintptr_t, [size_t]"),
	S("speculation", SPECULATION, "int", ""),
	S("progenyof", PROGENYOF, "int", "pid_t"),
	S("strlen", STRLEN, "size_t", "char *"),
	S("copyout", COPYOUT, "void", "void *, uintptr_t, size_t"),
	S("copyoutstr", COPYOUTSTR, "void", "char *, uintptr_t, size_t"),
	S("alloca", ALLOCA, "void *", "size_t"),
	S("bcopy", BCOPY, "void", "void *, void *, size_t"),
	S("copyinto", COPYINTO, "void", "uintptr_t, size_t, void *"),
	S("msgdsize", MSGDSIZE, "size_t", "mblk_t *"),
	S("msgsize", MSGSIZE, "size_t", "mblk_t *"),
	S("getmajor", GETMAJOR, "major_t", "dev_t"),
	S("getminor", GETMINOR, "minor_t", "dev_t"),
	S("ddi_pathname", DDI_PATHNAME, "string", "void *, int64_t"),
	S("strjoin", STRJOIN, "string", "char *, char *"),
	S("lltostr", LLTOSTR, "string", "int64_t, [int]"),
	S("basename", BASENAME, "string", "char *"),
	S("dirname", DIRNAME, "string", "char *"),
	S("cleanpath", CLEANPATH, "string", "char *"),
	S("strchr", STRCHR, "string", "char *, char"),
	S("strrchr", STRRCHR, "string", "char *, char"),
	S("strstr", STRSTR, "string", "char *, char *"),
	S("strtok", STRTOK, "string", "char *, char *"),
	S("substr", SUBSTR, "string", "char *, int, [int]"),
	S("index", INDEX, "int", "char *, char *, [int]"),
	S("rindex", RINDEX, "int", "char *, char *, [int]"),
	S("htons", HTONS, "uint16_t", "uint16_t"),
	S("htonl", HTONL, "uint32_t", "uint32_t"),
	S("htonll", HTONLL, "uint64_t", "uint64_t"),
	S("ntohs", NTOHS, "uint16_t", "uint16_t"),
	S("ntohl", NTOHL, "uint32_t", "uint32_t"),
	S("ntohll", NTOHLL, "uint64_t", "uint64_t"),
	S("inet_ntop", INET_NTOP, "string", "int, void *"),
	S("inet_ntoa", INET_NTOA, "string", "ipaddr_t *"),
	S("inet_ntoa6", INET_NTOA6, "string", "struct in6_addr *"),
	S("toupper", TOUPPER, "string", "char *"),
	S("tolower", TOLOWER, "string", "char *"),
	S("getf", GETF, "file_t *", "int"),
	S("strtoll", STRTOLL, "int64_t", "char *, [int]"),
	S("link_ntop", LINK_NTOP, "string", "int, void *"),
	S("d_path", D_PATH, "string", "struct path *"),
	/* machtrace: Mach message ids named by MIG's msgids (abi.h mt_msgid) */
	S("mach_msgname", MACH_MSGNAME, "string", "int"),
	S("mach_msgsubsystem", MACH_MSGSUBSYSTEM, "string", "int"),
	S("mach_pid", MACH_PID, "pid_t", "void *"),
	S("mach_tid", MACH_TID, "id_t", "void *"),
	S("mach_execname", MACH_EXECNAME, "string", "void *"),

	A("trace", MT_ACT_TRACE, "@"),
	A("printf", MT_ACT_PRINTF, "@, ..."),
	A("printa", MT_ACT_PRINTA, "@, ..."),
	A("exit", MT_ACT_EXIT, "int"),
	A("speculate", MT_ACT_SPECULATE, "int"),
	A("commit", MT_ACT_COMMIT, "int"),
	A("discard", MT_ACT_DISCARD, "int"),
	A("stack", MT_ACT_STACK, "[@]"),
	A("ustack", MT_ACT_USTACK, "[@], [@]"),
	A("jstack", MT_ACT_USTACK, "[@], [@]"),
	A("tracemem", MT_ACT_TRACEMEM, "@, size_t, [size_t]"),
	A("clear", MT_ACT_CLEAR, "@"),
	A("normalize", MT_ACT_NORMALIZE, "@, uint64_t"),
	A("denormalize", MT_ACT_DENORMALIZE, "@"),
	A("trunc", MT_ACT_TRUNC, "@, [uint64_t]"),
	A("setopt", MT_ACT_SETOPT, "char *, [char *]"),
	A("system", MT_ACT_SYSTEM, "@, ..."),
	A("freopen", MT_ACT_FREOPEN, "@, ..."),
	A("ftruncate", MT_ACT_FTRUNCATE, ""),
	A("printm", MT_ACT_PRINTM, "size_t, uintptr_t *"),
	A("pcap", MT_ACT_PCAP, "void *, int"),
	A("print", MT_ACT_PRINT, "@"),
	A("chill", MT_ACT_CHILL, "int"),
	A("raise", MT_ACT_RAISE, "int"),
	A("stop", MT_ACT_STOP, ""),
	A("breakpoint", MT_ACT_BREAKPOINT, ""),
	A("panic", MT_ACT_PANIC, ""),
	A("sym", MT_ACT_SYM, "uintptr_t"),
	A("func", MT_ACT_SYM, "uintptr_t"),
	A("mod", MT_ACT_MOD, "uintptr_t"),
	A("usym", MT_ACT_USYM, "uintptr_t"),
	A("ufunc", MT_ACT_USYM, "uintptr_t"),
	A("umod", MT_ACT_UMOD, "uintptr_t"),
	A("uaddr", MT_ACT_UADDR, "uintptr_t"),

	G("count", COUNT, ""),
	G("sum", SUM, "@"),
	G("avg", AVG, "@"),
	G("min", MIN, "@"),
	G("max", MAX, "@"),
	G("stddev", STDDEV, "@"),
	G("quantize", QUANTIZE, "@, ..."),
	G("lquantize", LQUANTIZE, "@, int32_t, int32_t, ..."),
	G("llquantize", LLQUANTIZE, "@, int32_t, int32_t, int32_t, int32_t, ..."),
};

static void count_proto(const char *p, int *min, int *max)
{
	int n = 0, opt = 0, va = 0;
	if (*p) {
		const char *q = p;
		for (;;) {
			while (*q == ' ')
				q++;
			if (strncmp(q, "...", 3) == 0)
				va = 1;
			else if (*q == '[')
				opt++;
			else
				n++;
			q = strchr(q, ',');
			if (!q)
				break;
			q++;
		}
	}
	*min = n;
	*max = va ? -1 : n + opt;
}

static void int_inline(struct cc *cc, const char *name, int val)
{
	struct ident *id = id_add(cc, &cc->globals, name, ID_INLINE);
	struct node *v = nd_new(cc, N_INT, 0);

	v->type = cc->t_int;
	v->is_const = 1;
	v->cval = val;
	id->type = cc->t_int;
	id->init = v;
}

/*
 * uregs[] indices: dtrace-utils' x86-64 regs.d (Linux's pt_regs order,
 * then the segment registers and the trap number; the i386 names after
 * R_GS; R_PC, R_SP, R_FP, R_PS, R_R0, R_R1 as aliases of those).
 */
static const struct { const char *name; int val; } regs_d[] = {
	{ "R_R15", 0 }, { "R_R14", 1 }, { "R_R13", 2 }, { "R_R12", 3 },
	{ "R_RBP", 4 }, { "R_RBX", 5 }, { "R_R11", 6 }, { "R_R10", 7 },
	{ "R_R9", 8 }, { "R_R8", 9 }, { "R_RAX", 10 }, { "R_RCX", 11 },
	{ "R_RDX", 12 }, { "R_RSI", 13 }, { "R_RDI", 14 }, { "R_ERR", 15 },
	{ "R_RIP", 16 }, { "R_CS", 17 }, { "R_RFL", 18 }, { "R_RSP", 19 },
	{ "R_SS", 20 }, { "R_DS", 21 }, { "R_ES", 22 }, { "R_FS", 23 },
	{ "R_GS", 24 }, { "R_TRAPNO", 25 },
	{ "R_EBX", 25 }, { "R_ECX", 26 }, { "R_EDX", 27 }, { "R_ESI", 28 },
	{ "R_EDI", 29 }, { "R_EBP", 30 }, { "R_EAX", 31 }, { "R_EIP", 37 },
	{ "R_EFL", 39 }, { "R_ESP", 40 },
	{ "R_PC", 37 }, { "R_FP", 30 }, { "R_SP", 40 }, { "R_PS", 39 },
	{ "R_R0", 31 }, { "R_R1", 25 },
};

void id_init(struct cc *cc)
{
	for (size_t i = 0; i < sizeof(bvars) / sizeof(bvars[0]); i++) {
		struct ident *id = id_add(cc, &cc->globals, bvars[i].name, ID_BVAR);
		id->id = bvars[i].id;
		if (strcmp(bvars[i].type, "void *") == 0)
			id->type = cc->t_voidp;
		else
			id->type = ty_lookup(cc, bvars[i].type);
		id->is_assoc = 0;
	}
	for (size_t i = 0; i < sizeof(fdefs) / sizeof(fdefs[0]); i++) {
		struct ident *id = id_add(cc, &cc->globals, fdefs[i].name,
					  fdefs[i].k);
		id->id = fdefs[i].id;
		id->proto = fdefs[i].proto;
		count_proto(fdefs[i].proto, &id->minargs, &id->maxargs);
		const char *r = fdefs[i].ret;
		if (strcmp(r, "void *") == 0)
			id->type = cc->t_voidp;
		else if (strchr(r, '*'))
			id->type = cc->t_voidp;
		else
			id->type = ty_lookup(cc, r);
		if (!id->type)
			id->type = cc->t_int;
	}
	/* the fault codes dtrace's unistd.d library declares as inlines */
	static const struct { const char *name; int val; } faults[] = {
		{ "DTRACEFLT_UNKNOWN", 0 }, { "DTRACEFLT_BADADDR", 1 },
		{ "DTRACEFLT_BADALIGN", 2 }, { "DTRACEFLT_ILLOP", 3 },
		{ "DTRACEFLT_DIVZERO", 4 }, { "DTRACEFLT_NOSCRATCH", 5 },
		{ "DTRACEFLT_KPRIV", 6 }, { "DTRACEFLT_UPRIV", 7 },
		{ "DTRACEFLT_TUPOFLOW", 8 }, { "DTRACEFLT_BADSTACK", 9 },
		{ "DTRACEFLT_BADSIZE", 10 }, { "DTRACEFLT_BADINDEX", 11 },
		{ "DTRACEFLT_LIBRARY", 1000 },
	};
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		int_inline(cc, faults[i].name, faults[i].val);
	for (size_t i = 0; i < sizeof(regs_d) / sizeof(regs_d[0]); i++)
		int_inline(cc, regs_d[i].name, regs_d[i].val);
	{
		struct ident *id = id_add(cc, &cc->globals, "NULL", ID_INLINE);
		/* an int 0, as in dtrace (sizeof (NULL) == 4); the constant 0
		   converts to any pointer or string */
		struct node *z = nd_new(cc, N_INT, 0);
		z->type = cc->t_int;
		z->is_const = 1;
		id->type = cc->t_int;
		id->init = z;
	}
	static const char *macros[] = { "pid", "ppid", "pgid", "sid", "uid",
					"gid", "euid", "egid", "projid",
					"taskid", "target" };
	for (size_t i = 0; i < sizeof(macros) / sizeof(macros[0]); i++) {
		struct ident *id = id_add(cc, &cc->globals,
					  cc_printf(cc, "$%s", macros[i]), ID_MACRO);
		id->type = cc->t_int;
		if (strcmp(macros[i], "pid") == 0)
			id->val = getpid();
		else if (strcmp(macros[i], "ppid") == 0)
			id->val = getppid();
		else if (strcmp(macros[i], "uid") == 0 ||
			 strcmp(macros[i], "euid") == 0)
			id->val = getuid();
		else if (strcmp(macros[i], "gid") == 0 ||
			 strcmp(macros[i], "egid") == 0)
			id->val = getgid();
		else if (strcmp(macros[i], "pgid") == 0)
			id->val = getpgrp();
		else if (strcmp(macros[i], "sid") == 0)
			id->val = getsid(0);
		else if (strcmp(macros[i], "target") == 0)
			id->val = cc->in ? cc->in->target : 0;
	}
}
