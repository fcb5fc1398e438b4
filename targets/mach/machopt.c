/*
 * The machine options' table and parser (include/machtrace/machopt.h).
 * Messages name the option and the value as given; the caller prefixes
 * its own name ("dtrace: ", "machtrace: vm start: ", ...).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "machtrace/machopt.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const struct mt_mopt_def mt_mopt_table[MT_MOPT_N] = {
	[MT_MOPT_KERNEL] = { "kernel", "FILE", "build/kernel/gnumach-dbg",
		"a readable GNU Mach image, .gz too",
		"the kernel to boot (machtrace kernel list)" },
	[MT_MOPT_MODULE] = { "module", "'PATH args'", "machload",
		"up to " STR(MT_USER_MAX_MODULES) " times",
		"a boot module, in order; instead of machload" },
	[MT_MOPT_WORKLOAD] = { "workload", "'WORDS'", "machload's own",
		"machload words (machtrace boot --help)",
		"machload's workload" },
	[MT_MOPT_TIMEOUT] = { "timeout", "SEC", "none (vm start: 60 s to boot)",
		"0 < SEC <= " STR(MT_MOPT_MAX_SECONDS),
		"the guest's time limit" },
	[MT_MOPT_MEMORY] = { "memory", "MIB", "512 (vm start: 256, or 512 with --cpus above 1)",
		STR(MT_MOPT_MEM_MIN) " to " STR(MT_MOPT_MEM_MAX) ", at least "
		STR(MT_MOPT_SMP_MEM_MIN) " with --cpus above 1",
		"the guest's RAM" },
	[MT_MOPT_CPUS] = { "cpus", "N", "1",
		"1 to " STR(MT_MOPT_MAX_CPUS) ", more than 1 only for an SMP kernel",
		"the guest's CPUs (QEMU -smp)" },
};

static int bad(char *err, size_t len, enum mt_mopt o, const char *v, const char *why)
{
	snprintf(err, len, "invalid --%s value '%s': %s", mt_mopt_table[o].name, v, why);
	return -1;
}

static int set_kernel(struct mt_mopts *m, const char *v, char *err, size_t len)
{
	struct stat st;

	if (stat(v, &st) != 0 || access(v, R_OK) != 0)
		return bad(err, len, MT_MOPT_KERNEL, v, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return bad(err, len, MT_MOPT_KERNEL, v, "not a regular file");
	m->kernel = v;
	return 0;
}

static int set_number(struct mt_mopts *m, enum mt_mopt o, const char *v, char *err,
		      size_t len)
{
	char *end;
	double d = strtod(v, &end);

	if (o == MT_MOPT_TIMEOUT) {
		if (end == v || *end || !(d > 0 && d <= MT_MOPT_MAX_SECONDS))
			return bad(err, len, o, v, "expected a positive number of seconds, "
				   "at most " STR(MT_MOPT_MAX_SECONDS));
		m->timeout_ms = d * 1000 < 1 ? 1 : (unsigned)(d * 1000);
		return 0;
	}
	if (o == MT_MOPT_CPUS) {
		if (end == v || *end || d != (unsigned)d || d < 1 || d > MT_MOPT_MAX_CPUS)
			return bad(err, len, o, v, "expected a number of CPUs from 1 to "
				   STR(MT_MOPT_MAX_CPUS));
		m->cpus = (unsigned)d;
		return 0;
	}
	if (end == v || (*end && strcmp(end, "M") != 0) || d != (unsigned)d ||
	    d < MT_MOPT_MEM_MIN || d > MT_MOPT_MEM_MAX)
		return bad(err, len, o, v, "expected MiB from " STR(MT_MOPT_MEM_MIN) " to "
			   STR(MT_MOPT_MEM_MAX));
	m->mem_mb = (unsigned)d;
	return 0;
}

int mt_mopt_set(struct mt_mopts *m, enum mt_mopt o, const char *v, char *err, size_t len)
{
	char why[256];

	switch (o) {
	case MT_MOPT_KERNEL:
		return set_kernel(m, v, err, len);
	case MT_MOPT_MODULE:
		if (m->nmodules == MT_MOPT_MAX_MODULES) {
			snprintf(err, len, "too many --module (at most %d)", MT_MOPT_MAX_MODULES);
			return -1;
		}
		if (!*v)
			return bad(err, len, o, v, "expected 'PATH args'");
		m->modules[m->nmodules++] = v;
		return 0;
	case MT_MOPT_WORKLOAD:
		if (mt_workload_check(v, why, sizeof why) != 0) {
			snprintf(err, len, "--workload: %s", why);
			return -1;
		}
		m->workload = v;
		return 0;
	default:
		return set_number(m, o, v, err, len);
	}
}

/* Which machine option argv[i] names (its value after '=' in *eq), or -1. */
static int which(const char *a, const char **eq)
{
	size_t n;

	if (strncmp(a, "--", 2) != 0)
		return -1;
	a += 2;
	*eq = strchr(a, '=');
	n = *eq ? (size_t)(*eq - a) : strlen(a);
	for (int o = 0; o < MT_MOPT_N; o++)
		if (strlen(mt_mopt_table[o].name) == n &&
		    strncmp(a, mt_mopt_table[o].name, n) == 0)
			return o;
	return -1;
}

int mt_mopt_extract(struct mt_mopts *m, int *argcp, char **argv, char *err, size_t len)
{
	int argc = *argcp, j = 1;

	for (int i = 1; i < argc; i++) {
		const char *eq, *v;
		int o = which(argv[i], &eq);

		if (o < 0) {
			argv[j++] = argv[i];
			continue;
		}
		if (eq)
			v = eq + 1;
		else if (i + 1 < argc)
			v = argv[++i];
		else {
			snprintf(err, len, "option --%s needs a value", mt_mopt_table[o].name);
			return -1;
		}
		if (mt_mopt_set(m, o, v, err, len) != 0)
			return -1;
	}
	argv[j] = NULL;
	*argcp = j;
	return 0;
}

void mt_mopt_help(FILE *fp, const char *indent)
{
	for (int o = 0; o < MT_MOPT_N; o++) {
		const struct mt_mopt_def *d = &mt_mopt_table[o];

		fprintf(fp, "%s--%s %s: %s\n%s    (default %s; %s)\n", indent, d->name,
			d->arg, d->help, indent, d->deflt, d->limit);
	}
}
