/*
 * dtrace(1) options: defaults, parsing of -x NAME[=VALUE] and
 * `#pragma D option`, with dtrace's value syntax (sizes with k/m/g/t
 * suffixes, rates with ns/us/ms/s/hz..., booleans) and error texts.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "machtrace/abi.h"
#include "machtrace/errtags.h"
#include "machtrace/options.h"

#define NANOSEC		1000000000ULL
#define OPT_NREGS	8		/* dtrace's register count for iregs */

enum opt_kind {
	K_SIZE,		/* uint64 bytes, k/m/g/t suffixes */
	K_SCRATCH,	/* size rounded up as dtrace does */
	K_STRSIZE,
	K_RUNTIME,	/* number or yes/no...; field is uint64 */
	K_FLAG,		/* dt_opt_runtime into an int flag */
	K_INTVAL,	/* dt_opt_runtime into an int (unset: 0) */
	K_RATE,		/* ns */
	K_BUFPOLICY,
	K_BUFRESIZE,
	K_CFLAG,	/* no value allowed; sets int to 1 */
	K_INVCFLAG,	/* no value allowed; sets int to 0 */
	K_ANY,		/* sets int flag, value ignored (droptags) */
	K_CPP,		/* -D/-U/-I style; not from a D program */
	K_STR_NOCTX,	/* needs a value; not from a D program */
	K_STR,		/* needs a value; ignored */
	K_NOVAL,	/* accepts no value; ignored */
	K_INT_POS,	/* atoi > 0 */
	K_INT_NNEG,	/* atoi >= 0 */
	K_MSGIDS,	/* machtrace: msgids paths, colon-separated; appends */
	K_STDC, K_VERSION, K_IREGS, K_CPU, K_PRINTSIZE, K_LINKMODE,
	K_LINKTYPE, K_EVALTIME, K_XLATE, K_DEBUGASSERT,
	K_OFORMAT	/* text or json (FreeBSD's oformat) */
};

enum opt_class { C_COMPILE, C_RUNTIME, C_DYNAMIC };

struct opt_desc {
	const char *name;
	enum opt_kind kind;
	enum opt_class cls;
	size_t off;		/* field offset, or (size_t)-1 */
	const char *cpp;	/* K_CPP: "-D", "-U", "-I" or NULL (cppargs) */
	uint64_t def;		/* the default; non-zero only for a uint64
				   field, or cpu (-1) */
};

#define F(f)	offsetof(struct mt_opts, f)
#define NOF	((size_t)-1)

static const struct opt_desc opt_table[] = {
	/* compile-time */
	{ "aggpercpu", K_CFLAG, C_COMPILE, F(aggpercpu), NULL, 0 },
	{ "amin", K_STR, C_COMPILE, NOF, NULL, 0 },
	{ "argref", K_CFLAG, C_COMPILE, F(argref), NULL, 0 },
	{ "core", K_NOVAL, C_COMPILE, NOF, NULL, 0 },
	{ "cpp", K_CFLAG, C_COMPILE, F(cpp), NULL, 0 },
	{ "cppargs", K_CPP, C_COMPILE, NOF, NULL, 0 },
	{ "cpphdrs", K_CFLAG, C_COMPILE, F(cpphdrs), NULL, 0 },
	{ "cpppath", K_STR_NOCTX, C_COMPILE, NOF, NULL, 0 },
	{ "ctypes", K_STR, C_COMPILE, NOF, NULL, 0 },
	{ "ctfpath", K_STR_NOCTX, C_COMPILE, NOF, NULL, 0 },
	{ "defaultargs", K_CFLAG, C_COMPILE, F(defaultargs), NULL, 0 },
	{ "debug", K_NOVAL, C_COMPILE, NOF, NULL, 0 },
	{ "debugassert", K_DEBUGASSERT, C_COMPILE, NOF, NULL, 0 },
	{ "define", K_CPP, C_COMPILE, NOF, "-D", 0 },
	{ "disasm", K_INT_NNEG, C_COMPILE, NOF, NULL, 0 },
	{ "droptags", K_ANY, C_COMPILE, F(droptags), NULL, 0 },
	{ "dtypes", K_STR, C_COMPILE, NOF, NULL, 0 },
	{ "empty", K_CFLAG, C_COMPILE, F(empty), NULL, 0 },
	{ "errtags", K_CFLAG, C_COMPILE, F(errtags), NULL, 0 },
	{ "evaltime", K_EVALTIME, C_COMPILE, NOF, NULL, 0 },
	{ "incdir", K_CPP, C_COMPILE, NOF, "-I", 0 },
	{ "iregs", K_IREGS, C_COMPILE, F(iregs), NULL, OPT_NREGS },
	{ "kdefs", K_INVCFLAG, C_COMPILE, F(knodefs), NULL, 0 },
	{ "knodefs", K_CFLAG, C_COMPILE, F(knodefs), NULL, 0 },
	{ "late", K_XLATE, C_COMPILE, NOF, NULL, 0 },
	{ "lazyload", K_ANY, C_COMPILE, NOF, NULL, 0 },
	{ "ldpath", K_STR_NOCTX, C_COMPILE, NOF, NULL, 0 },
	{ "libdir", K_STR, C_COMPILE, NOF, NULL, 0 },
	{ "linkmode", K_LINKMODE, C_COMPILE, NOF, NULL, 0 },
	{ "linktype", K_LINKTYPE, C_COMPILE, NOF, NULL, 0 },
	{ "linknommap", K_ANY, C_COMPILE, NOF, NULL, 0 },
	{ "modpath", K_STR_NOCTX, C_COMPILE, NOF, NULL, 0 },
	{ "msgids", K_MSGIDS, C_COMPILE, NOF, NULL, 0 },
	{ "nolibs", K_CFLAG, C_COMPILE, F(nolibs), NULL, 0 },
	{ "pgmax", K_INT_NNEG, C_COMPILE, NOF, NULL, 0 },
	{ "preallocate", K_SIZE, C_COMPILE, NOF, NULL, 0 },
	{ "procfspath", K_STR_NOCTX, C_COMPILE, NOF, NULL, 0 },
	{ "pspec", K_CFLAG, C_COMPILE, F(pspec), NULL, 0 },
	{ "stdc", K_STDC, C_COMPILE, F(stdc), NULL, 0 },
	{ "strip", K_CFLAG, C_COMPILE, F(strip), NULL, 0 },
	{ "syslibdir", K_STR, C_COMPILE, NOF, NULL, 0 },
	{ "sysslice", K_STR, C_COMPILE, NOF, NULL, 0 },
	{ "tree", K_INT_POS, C_COMPILE, NOF, NULL, 0 },
	{ "tregs", K_INT_POS, C_COMPILE, NOF, NULL, 0 },
	{ "udefs", K_INVCFLAG, C_COMPILE, F(unodefs), NULL, 0 },
	{ "undef", K_CPP, C_COMPILE, NOF, "-U", 0 },
	{ "unodefs", K_CFLAG, C_COMPILE, F(unodefs), NULL, 0 },
	{ "useruid", K_INT_NNEG, C_COMPILE, NOF, NULL, 0 },
	{ "verbose", K_CFLAG, C_COMPILE, F(verbose), NULL, 0 },
	{ "version", K_VERSION, C_COMPILE, F(version), NULL, 0 },
	{ "zdefs", K_CFLAG, C_COMPILE, F(zdefs), NULL, 0 },
	/* run-time */
	{ "aggsize", K_SIZE, C_RUNTIME, F(aggsize), NULL, 4 << 20 },
	{ "bpflog", K_RUNTIME, C_RUNTIME, NOF, NULL, 0 },
	{ "bpflogsize", K_SIZE, C_RUNTIME, NOF, NULL, 0 },
	{ "bufsize", K_SIZE, C_RUNTIME, F(bufsize), NULL, 4 << 20 },
	{ "bufpolicy", K_BUFPOLICY, C_RUNTIME, F(bufpolicy), NULL, 0 },
	{ "bufresize", K_BUFRESIZE, C_RUNTIME, F(bufresize), NULL, 0 },
	{ "cleanrate", K_RATE, C_RUNTIME, F(cleanrate), NULL, NANOSEC / 101 },
	{ "cpu", K_CPU, C_RUNTIME, F(cpu), NULL, (uint64_t)-1 },
	{ "destructive", K_FLAG, C_RUNTIME, F(destructive), NULL, 0 },
	{ "dynvarsize", K_SIZE, C_RUNTIME, F(dynvarsize), NULL, 1 << 20 },
	{ "grabanon", K_RUNTIME, C_RUNTIME, NOF, NULL, 0 },
	{ "jstackframes", K_RUNTIME, C_RUNTIME, NOF, NULL, 0 },
	{ "jstackstrsize", K_SIZE, C_RUNTIME, NOF, NULL, 0 },
	{ "lockmem", K_SIZE, C_RUNTIME, F(lockmem), NULL, 0 },
	{ "maxframes", K_RUNTIME, C_RUNTIME, F(maxframes), NULL, MT_OPT_UNSET },
	{ "nspec", K_RUNTIME, C_RUNTIME, F(nspec), NULL, 1 },
	{ "pcapsize", K_SIZE, C_RUNTIME, NOF, NULL, 0 },
	{ "scratchsize", K_SCRATCH, C_RUNTIME, F(scratchsize), NULL, 8 << 10 },
	{ "specsize", K_SIZE, C_RUNTIME, F(specsize), NULL, 32 << 10 },
	{ "stackframes", K_RUNTIME, C_RUNTIME, F(stackframes), NULL, 20 },
	{ "statusrate", K_RATE, C_RUNTIME, F(statusrate), NULL, NANOSEC },
	{ "strsize", K_STRSIZE, C_RUNTIME, F(strsize), NULL, 256 },
	{ "ustackframes", K_RUNTIME, C_RUNTIME, F(ustackframes), NULL, 100 },
	{ "noresolve", K_FLAG, C_RUNTIME, F(noresolve), NULL, 0 },
	{ "oformat", K_OFORMAT, C_RUNTIME, F(oformat), NULL, 0 },
	/* dynamic run-time */
	{ "aggrate", K_RATE, C_DYNAMIC, F(aggrate), NULL, NANOSEC },
	{ "aggsortkey", K_FLAG, C_DYNAMIC, F(aggsortkey), NULL, 0 },
	{ "aggsortkeypos", K_INTVAL, C_DYNAMIC, F(aggsortkeypos), NULL, 0 },
	{ "aggsortpos", K_INTVAL, C_DYNAMIC, F(aggsortpos), NULL, 0 },
	{ "aggsortrev", K_FLAG, C_DYNAMIC, F(aggsortrev), NULL, 0 },
	{ "aggzoom", K_FLAG, C_DYNAMIC, NOF, NULL, 0 },
	{ "flowindent", K_FLAG, C_DYNAMIC, F(flowindent), NULL, 0 },
	{ "quiet", K_FLAG, C_DYNAMIC, F(quiet), NULL, 0 },
	{ "quietresize", K_FLAG, C_DYNAMIC, F(quietresize), NULL, 0 },
	{ "rawbytes", K_FLAG, C_DYNAMIC, F(rawbytes), NULL, 0 },
	{ "stackindent", K_RUNTIME, C_DYNAMIC, F(stackindent), NULL, 14 },
	{ "switchrate", K_RATE, C_DYNAMIC, F(switchrate), NULL, NANOSEC },
	{ "printsize", K_PRINTSIZE, C_DYNAMIC, F(printsize), NULL, 8192 },
	{ NULL, 0, 0, 0, NULL, 0 }
};

void
mt_opts_init(struct mt_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (const struct opt_desc *d = opt_table; d->name; d++) {
		if (d->def == 0 || d->off == NOF)
			continue;
		if (d->kind == K_CPU)
			o->cpu = (int64_t)d->def;
		else
			*(uint64_t *)((char *)o + d->off) = d->def;
	}
	o->bufpolicy = MT_BUFPOLICY_SWITCH;
}

void
mt_opts_free(struct mt_opts *o)
{
	for (int i = 0; i < o->ncpp_args; i++)
		free(o->cpp_args[i]);
	free(o->cpp_args);
	for (int i = 0; i < o->nmsgids; i++)
		free(o->msgids[i]);
	free(o->msgids);
	o->msgids = NULL;
	o->nmsgids = 0;
	free(o->stdc);
	free(o->version);
	o->cpp_args = NULL;
	o->ncpp_args = 0;
	o->stdc = o->version = NULL;
}

static const struct opt_desc *
opt_find(const char *name)
{
	for (const struct opt_desc *d = opt_table; d->name; d++)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

uint64_t
mt_opts_default(const char *name)
{
	const struct opt_desc *d = opt_find(name);

	return d ? d->def : MT_OPT_UNSET;
}

uint32_t
mt_opts_strsize(uint64_t strsize)
{
	if (strsize == 0 || strsize == MT_OPT_UNSET)
		strsize = opt_find("strsize")->def;
	return (uint32_t)strsize + 1;
}

/* v, or the table's default for an unset one. */
static uint64_t
opt_or_default(const struct mt_opts *o, const char *name)
{
	const struct opt_desc *d = opt_find(name);
	uint64_t v = o ? *(const uint64_t *)((const char *)o + d->off) : d->def;

	return v == MT_OPT_UNSET ? d->def : v;
}

/*
 * -x scratchsize=0 gives the runtime this much scratch: the runtime's own
 * default when it had one, kept so that the sizes users get stay the same.
 */
#define SCRATCH_ZERO	(64u << 10)

void
mt_opts_image(const struct mt_opts *o, struct mt_options *out)
{
	memset(out, 0, sizeof(*out));
	out->bufsize = opt_or_default(o, "bufsize");
	out->aggsize = opt_or_default(o, "aggsize");
	out->dynvarsize = opt_or_default(o, "dynvarsize");
	out->specsize = opt_or_default(o, "specsize");
	out->scratchsize = opt_or_default(o, "scratchsize");
	if (out->scratchsize == 0)
		out->scratchsize = SCRATCH_ZERO;
	out->nspec = (uint32_t)opt_or_default(o, "nspec");
	out->strsize = mt_opts_strsize(opt_or_default(o, "strsize"));
	out->bufpolicy = o ? o->bufpolicy : MT_BUFPOLICY_SWITCH;
	out->stackframes = (uint32_t)opt_or_default(o, "stackframes");
	out->ncpus = 1;
	out->flags = o && o->destructive ? MT_OPT_F_DESTRUCTIVE : 0;
}

/* dt_optval_parse: a number with an optional k/m/g/t suffix. */
static int
parse_size(const char *arg, uint64_t *out)
{
	size_t len = strlen(arg);
	uint64_t mul = 1;
	char *end;

	if (len == 0)
		return -1;
	switch (arg[len - 1]) {
	case 't': case 'T': mul *= 1024; /* FALLTHROUGH */
	case 'g': case 'G': mul *= 1024; /* FALLTHROUGH */
	case 'm': case 'M': mul *= 1024; /* FALLTHROUGH */
	case 'k': case 'K': mul *= 1024; /* FALLTHROUGH */
	default: break;
	}
	if (strtoll(arg, NULL, 0) < 0)
		return -1;
	errno = 0;
	*out = strtoull(arg, &end, 0) * mul;
	if ((mul > 1 && end != &arg[len - 1]) || (mul == 1 && *end != '\0') ||
	    (int64_t)*out < 0 || errno != 0)
		return -1;
	return 0;
}

/* dt_opt_runtime: yes/no words or a non-negative number. */
static int
parse_runtime(const char *arg, uint64_t *out)
{
	static const char *const pos[] = { "yes", "enable", "enabled", "true",
					   "on", "set", NULL };
	static const char *const neg[] = { "no", "disable", "disabled",
					   "false", "off", "unset", NULL };
	char *end;

	if (arg == NULL) {
		*out = 0;
		return 0;
	}
	if (arg[0] == '\0') {
		*out = MT_OPT_UNSET;
		return 0;
	}
	for (int i = 0; pos[i]; i++) {
		if (strcasecmp(pos[i], arg) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(neg[i], arg) == 0) {
			*out = MT_OPT_UNSET;
			return 0;
		}
	}
	if (strtoll(arg, NULL, 0) < 0)
		return -1;
	errno = 0;
	*out = strtoull(arg, &end, 0);
	if (*end != '\0' || errno != 0 || (int64_t)*out < 0)
		return -1;
	return 0;
}

/* dt_opt_rate: a number with a time unit suffix, or a frequency (hz). */
static int
parse_rate(const char *arg, uint64_t *out)
{
	static const struct { const char *name; uint64_t mul; } sfx[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 }, { "s", NANOSEC },
		{ "sec", NANOSEC }, { "m", NANOSEC * 60 }, { "min", NANOSEC * 60 },
		{ "h", NANOSEC * 3600 }, { "hour", NANOSEC * 3600 },
		{ "d", NANOSEC * 86400 }, { "day", NANOSEC * 86400 },
		{ "hz", 0 }, { NULL, 0 }
	};
	uint64_t mul = 1, val;
	char *end;
	int i;

	if (strtoll(arg, NULL, 0) < 0)
		return -1;
	errno = 0;
	val = strtoull(arg, &end, 0);
	for (i = 0; sfx[i].name; i++) {
		if (strcasecmp(sfx[i].name, end) == 0) {
			mul = sfx[i].mul;
			break;
		}
	}
	if ((sfx[i].name == NULL && *end != '\0') || (int64_t)val < 0)
		return -1;
	if (mul == 0)
		val = val ? NANOSEC / val : 0;
	else
		val *= mul;
	*out = val;
	return 0;
}

static int
version_defined(const char *v)
{
	static const char *const known[] = {
		"1.0", "1.1", "1.2", "1.2.1", "1.2.2", "1.3", "1.4", "1.4.1",
		"1.5", "1.6", "1.6.1", "1.6.2", "1.6.3", "1.6.4", "2.0",
		"2.0.1", NULL
	};
	for (int i = 0; known[i]; i++)
		if (strcmp(known[i], v) == 0)
			return 1;
	return 0;
}

int
mt_version_wellformed(const char *v)
{
	int parts = 0, digits = 0;

	for (const char *p = v; ; p++) {
		if (*p >= '0' && *p <= '9') {
			if (++digits > 4)
				return 0;
			continue;
		}
		if (digits == 0)
			return 0;
		parts++;
		digits = 0;
		if (*p == '\0')
			break;
		if (*p != '.')
			return 0;
	}
	return parts >= 1 && parts <= 3;
}

static int
cpp_add(struct mt_opts *o, const char *prefix, const char *arg)
{
	char **v = realloc(o->cpp_args, (o->ncpp_args + 1) * sizeof(*v));
	size_t n = strlen(prefix) + strlen(arg) + 1;

	if (v == NULL)
		return -1;
	o->cpp_args = v;
	if ((v[o->ncpp_args] = malloc(n)) == NULL)
		return -1;
	snprintf(v[o->ncpp_args++], n, "%s%s", prefix, arg);
	return 0;
}

static int
cpp_add_split(struct mt_opts *o, const char *arg)
{
	char *s = strdup(arg), *save = NULL;

	if (s == NULL)
		return -1;
	for (char *p = strtok_r(s, " \t\n\r\f\v", &save); p;
	     p = strtok_r(NULL, " \t\n\r\f\v", &save))
		cpp_add(o, "", p);
	free(s);
	return 0;
}

/* -xmsgids=A:B: appends A and B; an empty path is not a path. */
static int
msgids_add(struct mt_opts *o, const char *arg)
{
	const char *p = arg;

	do {
		size_t n = strcspn(p, ":");
		char **v;

		if (n == 0)
			return -1;
		v = realloc(o->msgids, (o->nmsgids + 1) * sizeof(*v));
		if (v == NULL)
			return -1;
		o->msgids = v;
		if ((v[o->nmsgids] = strndup(p, n)) == NULL)
			return -1;
		o->nmsgids++;
		p += n;
	} while (*p++ == ':');
	return 0;
}

static int
fail(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
	return -1;
}

/* Sizes: buffer sizes, scratch, strsize, printsize. */
static int
opt_size(struct mt_opts *o, const struct opt_desc *d, const char *v,
	 char *err, size_t errlen)
{
	uint64_t *u64 = d->off != NOF ? (uint64_t *)((char *)o + d->off) : NULL;
	uint64_t val = 0;

	switch (d->kind) {
	case K_SIZE:
		if (v != NULL && parse_size(v, &val) != 0)
			return fail(err, errlen, MT_OPTERR_VAL);
		if (u64)
			*u64 = val;
		return 0;
	case K_SCRATCH:
		if (v != NULL && parse_size(v, &val) != 0)
			return fail(err, errlen, MT_OPTERR_VAL);
		if (val > 0)
			val = (val + 8 + 7) & ~7ULL;
		*u64 = val;
		return 0;
	case K_STRSIZE:
		/* dtrace wants room for at least one character and the NUL */
		if (v == NULL || parse_size(v, &val) != 0 || val < 2)
			return fail(err, errlen, MT_OPTERR_VAL);
		if (val >= UINT32_MAX)	/* the runtime's holds the NUL too */
			return fail(err, errlen,
				    "Value too large for defined data type");
		*u64 = val;
		return 0;
	case K_PRINTSIZE:
		val = 8192;
		if (v != NULL) {
			if (parse_size(v, &val) != 0)
				return fail(err, errlen, MT_OPTERR_VAL);
			if (val == 0 || val > 65536)
				val = 8192;
		}
		o->printsize = (val + 7) & ~7ULL;
		return 0;
	default:
		break;
	}
	return fail(err, errlen, MT_OPTERR_VAL);
}

/* Numbers: runtime values, flags given a value, rates, counts. */
static int
opt_number(struct mt_opts *o, const struct opt_desc *d, const char *v,
	   char *err, size_t errlen)
{
	uint64_t *u64 = d->off != NOF ? (uint64_t *)((char *)o + d->off) : NULL;
	int *iv = d->off != NOF ? (int *)((char *)o + d->off) : NULL;
	uint64_t val = 0;
	int n;

	switch (d->kind) {
	case K_RUNTIME:
	case K_FLAG:
	case K_INTVAL:
		if (parse_runtime(v, &val) != 0)
			return fail(err, errlen, MT_OPTERR_VAL);
		if (d->kind == K_FLAG && iv)
			*iv = val != MT_OPT_UNSET;
		else if (d->kind == K_INTVAL && iv)
			*iv = val == MT_OPT_UNSET || val > INT32_MAX ? 0 : (int)val;
		else if (u64)
			*u64 = val;
		return 0;
	case K_RATE:
		if (v != NULL && parse_rate(v, &val) != 0)
			return fail(err, errlen, MT_OPTERR_VAL);
		*u64 = val;
		return 0;
	case K_CPU:
		if (parse_runtime(v, &val) != 0)
			return fail(err, errlen, MT_OPTERR_VAL);
		o->cpu = val == MT_OPT_UNSET ? -1 : (int64_t)val;
		return 0;
	case K_IREGS:
		if (v == NULL || (n = atoi(v)) <= 0 || n > OPT_NREGS)
			return fail(err, errlen, MT_OPTERR_VAL);
		if (n < OPT_NREGS)
			return fail(err, errlen,
				    "Insufficient registers to generate code");
		o->iregs = n;
		return 0;
	case K_INT_POS:
	case K_INT_NNEG:
		if (v == NULL || (n = atoi(v)) < 0 ||
		    (d->kind == K_INT_POS && n == 0))
			return fail(err, errlen, MT_OPTERR_VAL);
		return 0;
	default:
		break;
	}
	return fail(err, errlen, MT_OPTERR_VAL);
}

/* Words from a fixed set. */
static int
opt_word(struct mt_opts *o, const struct opt_desc *d, const char *v,
	 char *err, size_t errlen)
{
	switch (d->kind) {
	case K_BUFPOLICY:
		if (v == NULL)
			return fail(err, errlen, MT_OPTERR_VAL);
		if (strcmp(v, "ring") == 0)
			o->bufpolicy = MT_BUFPOLICY_RING;
		else if (strcmp(v, "fill") == 0)
			o->bufpolicy = MT_BUFPOLICY_FILL;
		else if (strcmp(v, "switch") == 0)
			o->bufpolicy = MT_BUFPOLICY_SWITCH;
		else
			return fail(err, errlen, MT_OPTERR_VAL);
		return 0;
	case K_BUFRESIZE:
		if (v == NULL)
			return fail(err, errlen, MT_OPTERR_VAL);
		if (strcmp(v, "auto") == 0)
			o->bufresize = 0;
		else if (strcmp(v, "manual") == 0)
			o->bufresize = 1;
		else
			return fail(err, errlen, MT_OPTERR_VAL);
		return 0;
	case K_LINKMODE:
		if (v == NULL || (strcmp(v, "kernel") && strcmp(v, "dynamic") &&
				  strcmp(v, "static")))
			return fail(err, errlen, MT_OPTERR_VAL);
		return 0;
	case K_LINKTYPE:
		if (v == NULL || (strcasecmp(v, "elf") && strcasecmp(v, "dof")))
			return fail(err, errlen, MT_OPTERR_VAL);
		return 0;
	case K_EVALTIME:
		if (v == NULL || (strcmp(v, "exec") && strcmp(v, "preinit") &&
				  strcmp(v, "postinit") && strcmp(v, "main")))
			return fail(err, errlen, MT_OPTERR_VAL);
		return 0;
	case K_XLATE:
		if (v == NULL || (strcmp(v, "dynamic") && strcmp(v, "static")))
			return fail(err, errlen, MT_OPTERR_VAL);
		return 0;
	case K_DEBUGASSERT:
		if (v == NULL || strcmp(v, "mutexes"))
			return fail(err, errlen, MT_OPTERR_VAL);
		return 0;
	case K_OFORMAT:
		if (v != NULL && strcmp(v, "text") == 0)
			o->oformat = MT_OFORMAT_TEXT;
		else if (v != NULL && strcmp(v, "json") == 0)
			o->oformat = MT_OFORMAT_JSON;
		else
			return fail(err, errlen, MT_OPTERR_VAL);
		return 0;

	default:
		break;
	}
	return fail(err, errlen, MT_OPTERR_VAL);
}

/* Compiler settings, some not settable from a #pragma. */
static int
opt_compiler(struct mt_opts *o, const struct opt_desc *d, const char *v,
	     int pragma, char *err, size_t errlen)
{
	/* every one needs a value; these are refused from a #pragma */
	if (v == NULL)
		return fail(err, errlen, MT_OPTERR_VAL);
	if (pragma && (d->kind == K_CPP || d->kind == K_STR_NOCTX ||
		       d->kind == K_MSGIDS || d->kind == K_STDC))
		return fail(err, errlen, MT_OPTERR_CTX);
	switch (d->kind) {
	case K_CPP:
		if (d->cpp)
			return cpp_add(o, d->cpp, v);
		return cpp_add_split(o, v);
	case K_STR_NOCTX:
	case K_STR:
		return 0;
	case K_MSGIDS:
		return msgids_add(o, v) == 0 ? 0 :
			fail(err, errlen, MT_OPTERR_VAL);
	case K_STDC:
		if (strcmp(v, "a") && strcmp(v, "c") && strcmp(v, "t") &&
		    strcmp(v, "s"))
			return fail(err, errlen, MT_OPTERR_VAL);
		free(o->stdc);
		o->stdc = strdup(v);
		return 0;
	case K_VERSION:
		if (!mt_version_wellformed(v))
			return fail(err, errlen, "Version is not properly "
				    "formatted or is too large");
		if (!version_defined(v))
			return fail(err, errlen, "Requested version is not "
				    "supported by compiler");
		free(o->version);
		o->version = strdup(v);
		return 0;
	default:
		break;
	}
	return fail(err, errlen, MT_OPTERR_VAL);
}

/* Apply one option; pragma: from inside a D program. */
static int
opt_apply(struct mt_opts *o, const struct opt_desc *d, const char *v,
	  int pragma, char *err, size_t errlen)
{
	int *iv = d->off != NOF ? (int *)((char *)o + d->off) : NULL;

	switch (d->kind) {
	case K_SIZE:
	case K_SCRATCH:
	case K_STRSIZE:
	case K_PRINTSIZE:
		return opt_size(o, d, v, err, errlen);
	case K_RUNTIME:
	case K_FLAG:
	case K_INTVAL:
	case K_RATE:
	case K_INT_POS:
	case K_INT_NNEG:
	case K_IREGS:
	case K_CPU:
		return opt_number(o, d, v, err, errlen);
	case K_BUFPOLICY:
	case K_BUFRESIZE:
	case K_LINKMODE:
	case K_LINKTYPE:
	case K_EVALTIME:
	case K_XLATE:
	case K_DEBUGASSERT:
	case K_OFORMAT:
		return opt_word(o, d, v, err, errlen);
	case K_CPP:
	case K_STR_NOCTX:
	case K_STR:
	case K_MSGIDS:
	case K_STDC:
	case K_VERSION:
		return opt_compiler(o, d, v, pragma, err, errlen);
	case K_CFLAG:
	case K_INVCFLAG:
	case K_NOVAL:
		if (v != NULL)
			return fail(err, errlen, MT_OPTERR_VAL);
		if (iv)
			*iv = d->kind == K_CFLAG;
		return 0;
	case K_ANY:
		if (iv)
			*iv = 1;
		return 0;
	}
	return fail(err, errlen, MT_OPTERR_VAL);
}

int
mt_opts_set(struct mt_opts *o, const char *name, const char *value,
	    const char **tag, char *err, size_t errlen)
{
	const struct opt_desc *d = name ? opt_find(name) : NULL;

	if (tag)
		*tag = mt_dtag_name(D_PRAGMA_OPTSET);
	if (d == NULL)
		return fail(err, errlen, MT_OPTERR_NAME);
	return opt_apply(o, d, value, 0, err, errlen);
}

int
mt_opts_set_pragma(struct mt_opts *o, const char *name, const char *value,
		   const char **tag, char *err, size_t errlen)
{
	const struct opt_desc *d = name ? opt_find(name) : NULL;
	char why[128];

	if (tag)
		*tag = mt_dtag_name(D_PRAGMA_OPTSET);
	if (d == NULL)
		snprintf(why, sizeof(why), "%s", MT_OPTERR_NAME);
	else if (opt_apply(o, d, value, 1, why, sizeof(why)) == 0)
		return 0;
	if (err && errlen)
		snprintf(err, errlen, "failed to set option '%s' to '%s': %s",
			 name ? name : "", value ? value : "", why);
	return -1;
}

void
mt_opts_setenv(struct mt_opts *o, const char *prefix)
{
	char var[128], err[128];
	const char *v;

	for (const struct opt_desc *d = opt_table; d->name; d++) {
		size_t n = (size_t)snprintf(var, sizeof(var), "%s%s", prefix,
					    d->name);

		for (size_t i = strlen(prefix); i < n && i < sizeof(var); i++)
			if (var[i] >= 'a' && var[i] <= 'z')
				var[i] = (char)(var[i] - 'a' + 'A');
		if ((v = getenv(var)) != NULL)
			opt_apply(o, d, v, 0, err, sizeof(err));
	}
}

int
mt_opts_set_active(struct mt_opts *o, const char *name, const char *value,
		   char *err, size_t errlen)
{
	const struct opt_desc *d = name ? opt_find(name) : NULL;

	if (d == NULL)
		return fail(err, errlen, MT_OPTERR_NAME);
	if (d->cls == C_RUNTIME)
		return fail(err, errlen,
			    "Operation illegal when tracing is active");
	return opt_apply(o, d, value, 1, err, errlen);
}
