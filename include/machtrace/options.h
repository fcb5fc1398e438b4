/*
 * dtrace(1) options (-x NAME[=VALUE], #pragma D option).  Host code only.
 * Implemented in common/options.c.
 */
#ifndef MACHTRACE_OPTIONS_H
#define MACHTRACE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#define MT_OPT_UNSET	UINT64_MAX

struct mt_opts {
	/* runtime sizes (bytes) */
	uint64_t bufsize, aggsize, dynvarsize, specsize, scratchsize;
	uint64_t nspec, strsize, stackframes, ustackframes;
	uint32_t bufpolicy;		/* MT_BUFPOLICY_* */
	uint32_t bufresize;		/* 0 auto, 1 manual */
	/* rates (ns) */
	uint64_t aggrate, switchrate, statusrate, cleanrate;
	/* consumer behaviour */
	int quiet, flowindent, rawbytes, errtags, droptags, destructive;
	int aggsortkey, aggsortrev, aggsortkeypos, aggsortpos, aggpercpu;
	int zdefs, cpp, defaultargs, strip, verbose;
	int64_t aggzoom;
	char *stdc;			/* -xstdc= (a, c, s, t) */
	char *version;			/* -xversion= */
	/* added by consumer (see docs/abi-changes.md) */
	int argref, empty, pspec, knodefs, unodefs, quietresize, noresolve;
	int nolibs, cpphdrs;
	int64_t cpu;			/* -xcpu=N, -1 unset */
	uint64_t stackindent, printsize, maxframes, iregs;
	uint64_t lockmem;		/* -xlockmem: host memory budget, 0 unset */
	char **cpp_args;		/* -xdefine/-xundef/-xincdir/-xcppargs, */
	int ncpp_args;			/* as cpp arguments ("-DX=1", ...) */
	char **msgids;			/* -xmsgids=PATH[:PATH...], each time */
	int nmsgids;			/* given: msgids files or directories */
	int oformat;			/* MT_OFORMAT_*: -xoformat=text|json */
};

#define MT_OFORMAT_TEXT	0		/* dtrace's text (the default) */
#define MT_OFORMAT_JSON	1		/* one JSON document (consumer/json*.c) */

/*
 * Defaults as dtrace uses them (bufsize 4m, aggsize 4m, strsize 256, ...),
 * from the one options table in common/options.c.
 */
void mt_opts_init(struct mt_opts *o);

/* Option name's default in that table (MT_OPT_UNSET: no such option). */
uint64_t mt_opts_default(const char *name);

/*
 * A string's size as the compiler's string type and the runtime hold it:
 * dtrace's strsize (0 or unset: the default) plus the NUL.
 */
uint32_t mt_opts_strsize(uint64_t strsize);

/*
 * The enabling image's options (abi.h's struct mt_options) from o (NULL:
 * the defaults): the one place options become the runtime's sizes, read
 * by the link stage.  ncpus is 1 (the link stage sets the target's, mt_target_ops.ncpus).
 */
struct mt_options;
void mt_opts_image(const struct mt_opts *o, struct mt_options *out);

/*
 * Set option name to value (NULL for a bare flag).  Returns 0, or -1 with a
 * message in err: the text dtrace prints and *tag set to the D_* tag
 * (D_PRAGMA_OPTSET for pragmas), e.g. unknown option or bad value.
 */
int mt_opts_set(struct mt_opts *o, const char *name, const char *value,
		const char **tag, char *err, size_t errlen);

/*
 * As mt_opts_set() for a `#pragma D option`: options that cannot be set
 * from a D program are refused, and err holds dtrace's whole message
 * "failed to set option 'N' to 'V': WHY" with *tag D_PRAGMA_OPTSET.
 */
int mt_opts_set_pragma(struct mt_opts *o, const char *name, const char *value,
		       const char **tag, char *err, size_t errlen);

/*
 * As mt_opts_set() while tracing is active (setopt() action): only dynamic
 * options (quiet, aggrate, aggsort*, switchrate, ...) may change; others
 * fail with "Operation illegal when tracing is active".
 */
int mt_opts_set_active(struct mt_opts *o, const char *name, const char *value,
		       char *err, size_t errlen);

/* dtrace's texts for mt_opts_set() failures (err holds one of these). */
#define MT_OPTERR_NAME	"Invalid option name"
#define MT_OPTERR_VAL	"Invalid value for specified option"
#define MT_OPTERR_CTX	"Option cannot be used from within a D program"

/* dtrace_setoptenv: options from PREFIX<NAME> environment variables
   (e.g. DTRACE_OPT_QUIET); bad values are ignored, as dtrace does. */
void mt_opts_setenv(struct mt_opts *o, const char *prefix);

/* A D version string's form ("1.6.3": up to three parts of digits). */
int mt_version_wellformed(const char *v);

void mt_opts_free(struct mt_opts *o);

#endif /* MACHTRACE_OPTIONS_H */
