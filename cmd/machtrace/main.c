/*
 * machtrace: argument handling.  Like dtrace(1), options may follow
 * operands, options are applied in command-line order, and operands after
 * the programs become the macro arguments $1..$N.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "tools/record/record.h"
#include "tools/tools.h"
#include "machtrace/esc.h"
#include "machtrace/live.h"
#include "machtrace/mach.h"
#include "machtrace/program.h"
#include "machtrace/session.h"

static const char OPTSTR[] =
	"+3:6:aAb:Bc:CdD:ef:FGhHi:I:lL:m:n:o:p:P:qs:SU:vVwx:X:Z";

/*
 * getopt() that says whether it stopped at "--": every argument after it
 * is a macro argument ($1, $2, ...) even when it looks like an option.
 * The caller stops calling getopt() then: glibc, asked again past "--",
 * rewinds optind to the first operand and the loop would never end.
 */
static int
next_opt(int argc, char **argv, int *dashdash)
{
	int at = optind, c = getopt(argc, argv, OPTSTR);

	if (c == -1 && optind == at + 1 && strcmp(argv[at], "--") == 0)
		*dashdash = 1;
	return c;
}

static int
usage(FILE *fp, const char *pname)
{
	static const char predact[] = "[[ predicate ] action ]";

	fprintf(fp, "Usage: %s [-32|-64] [-CeFGhHlqSvVwZ] [-b bufsz] "
		"[-c cmd] [-D name[=def]]\n\t[-I path] [-L path] [-o output] "
		"[-p pid] [-s script] [-U name]\n\t[-x opt[=val]] "
		"[-X a|c|s|t]\n\n"
		"\t[-P provider %s]\n\t[-m [ provider: ] module %s]\n"
		"\t[-f [[ provider: ] module: ] func %s]\n"
		"\t[-n [[[ provider: ] module: ] func: ] name %s]\n"
		"\t[-i probe-id %s] [ args ... ]\n\n", pname, predact, predact,
		predact, predact, predact);
	fprintf(fp, "\tpredicate -> '/' D-expression '/'\n"
		"\t   action -> '{' D-statements '}'\n");
	fprintf(fp, "\n"
		"\t-b  set trace buffer size\n"
		"\t-c  run specified command and exit upon its completion\n"
		"\t-C  run cpp(1) preprocessor on script files\n"
		"\t-D  define symbol when invoking preprocessor\n"
		"\t-e  exit after compiling request but prior to enabling "
		"probes\n"
		"\t-f  enable or list probes matching the specified function "
		"name\n"
		"\t-F  coalesce trace output by function\n"
		"\t-h  print this help\n"
		"\t-i  enable or list probes matching the specified probe id\n"
		"\t-I  add include directory to preprocessor search path\n"
		"\t-l  list probes matching specified criteria\n"
		"\t-m  enable or list probes matching the specified module "
		"name\n"
		"\t-n  enable or list probes matching the specified probe name\n"
		"\t-o  set output file\n"
		"\t-p  grab specified process-ID and cache its symbols\n"
		"\t-P  enable or list probes matching the specified provider "
		"name\n"
		"\t-q  set quiet mode (only output explicitly traced data)\n"
		"\t-s  enable or list probes according to the specified D "
		"script\n"
		"\t-S  print D compiler intermediate code\n"
		"\t-U  undefine symbol when invoking preprocessor\n"
		"\t-v  set verbose mode (report stability attributes, "
		"arguments)\n"
		"\t-V  report DTrace API version\n"
		"\t-w  permit destructive actions\n"
		"\t-x  enable or modify compiler and tracing options\n"
		"\t-X  specify ISO C conformance settings for preprocessor\n"
		"\t-Z  permit probe descriptions that match zero probes\n"
		"\n\tTarget: GNU Mach booted in QEMU when a probe description "
		"names fbt, kinst,\n\tline, mach_trap, sched, ipc, proc, vm, sdt, a task's pid<N> "
		"or usdt provider\n\t(machload1), or names no provider and matches "
		"only kernel probes\n\t(-f, -m, -i), or "
		"when a machine option, --mach, -c or -p\n\tis given; "
		"otherwise the\n\tlocal target: BEGIN, END, tick-N and profile-N fire in "
		"machtrace itself\n\t(curthread, stack(), func() and profile's arg0 describe "
		"no kernel there).\n"
		"\t--mach: BEGIN, END, profile, tick in the kernel too\n"
		"\t--disk IMAGE [--snapshot]: boot what the raw disk image's "
		"/boot/grub/grub.cfg\n\tboots, with the image attached "
		"(docs/disk.md)\n"
		"\t--vm NAME (or $MACHTRACE_VM): attach to a running VM instead of "
		"booting\n\t(docs/vm.md)\n"
		"\t-c 'machload WORDS' or -c 'PATH ARGS': the first boot module, "
		"pid 1 ($target);\n\t-p PID: a task by machtrace's pid "
		"(creation order: the workload is 1)\n"
		"\tMACHTRACE_CONSOLE_LOG=FILE: the guest's console (machload's "
		"report) to FILE;\n\tMACHTRACE_CONSOLE=1: to stderr\n"
		"\t%s boot ...   boot GNU Mach under QEMU (%s boot --help)"
		"\n"
		"\t%s vm start|list|stop|console ...   persistent VMs (docs/vm.md)\n"
		"\t%s kernel fetch [--suite SUITE] [--version V] | kernel list\n"
		"\t    Debian's GNU Mach kernels in the build tree's cache (installed:\n\t    ~/.cache/machtrace/kernels)\n"
		"\t%s record -o DIR [--events sched,ipc,vm,proc,trap] [options] "
		"[program]\n\t    write the records as a CTF trace (babeltrace2, "
		"Trace Compass)\n"
		"\t%s export DIR --format chrome|folded|flamegraph|speedscope "
		"[-o FILE]\n"
		"\t%s report DIR -o FILE.html   a self-contained HTML report "
		"of a trace\n"
		"\t%s baseline save|compare NAME [--vm NAME] [machine options] "
		"[-d SEC]\n\t    [--runs N] [--icount]   store a measurement of N runs, or "
		"compare one\n\t    with it (exit 3: a regression; docs/baselines.md)\n"
		"\t%s top [--vm NAME] [--disk IMAGE] [machine options] [-d SEC] [-b] "
		"[-n COUNT]\n\t    [--rules FILE] [--explain]\n\t    a live view per task, RPC routine and system, "
		"counters, health\n\t    (docs/top.md)\n"
		"\t%s health [--vm NAME] [--disk IMAGE] [machine options] [-d SEC] "
		"[--rules FILE]\n"
		"\t    one health report (0-100)\n"
		"\t%s msgdecode <IN   rpcsnoop's filter: message bodies decoded\n"
		"\t-d  print the D program after machtrace's rewrites (cpp, $N, $target,\n"
		"\t    kinst::FUNC:entry/return of an inlined FUNC as its sites), then run it\n"
		"\t--version   machtrace's own version (-V: the D API version)\n",
		pname, pname, pname, pname, pname, pname, pname, pname, pname, pname,
		pname);
	fprintf(fp, "\n\tMachine options (sessions, record, top, health, baseline, "
		"boot, vm start):\n");
	mt_mopt_help(fp, "\t");
	fprintf(fp, "\n\tThe manual: machtrace(1), machtrace-toolkit(1) (man machtrace)\n");
	return E_USAGE;
}

/* -P/-m/-f: turn a partial description into a full specifier. */
static char *
pspec_from(int c, const char *arg)
{
	int need = c == 'P' ? 3 : c == 'm' ? 2 : c == 'f' ? 1 : 0;
	size_t dlen = strcspn(arg, "{/"), rest = dlen;
	char *s = malloc(strlen(arg) + 5);

	if (s == NULL)
		return NULL;
	while (dlen > 0 && (arg[dlen - 1] == ' ' || arg[dlen - 1] == '\t'))
		dlen--;
	memcpy(s, arg, dlen);
	for (int i = 0; i < need; i++)
		s[dlen++] = ':';
	s[dlen++] = ' ';
	strcpy(s + dlen, arg + rest);
	return s;
}

/*
 * -i ID [[predicate] action]: the probe with that id in the catalog -l
 * prints: the kernel's when it can be read (--kernel's, else the cached
 * stock one), else the local target's.
 */
static char *
pspec_from_id(const struct cli *cl, const char *arg)
{
	struct mt_live_opts lo;
	struct mt_session *s;
	char *end, *d, desc[512];
	uint32_t id;
	int r = -1;

	errno = 0;
	id = (uint32_t)strtoul(arg, &end, 10);
	if (end == arg || errno != 0 || (*end != '\0' && !strchr(" \t{/", *end))) {
		fprintf(stderr, "dtrace: invalid probe identifier %s\n", arg);
		return NULL;
	}
	memset(&lo, 0, sizeof(lo));
	lo.kernel = cl->m.mach.kernel;
	if ((s = mt_session_open(&lo, 0, stderr)) != NULL)
		r = mt_session_probe_by_id(s, id, desc, sizeof(desc));
	mt_session_close(s);
	if (r != 0) {
		fprintf(stderr, "dtrace: invalid probe specifier %s: "
			"probe ID %u does not exist\n", arg, id);
		return NULL;
	}
	if ((d = malloc(strlen(desc) + strlen(end) + 2)) != NULL)
		sprintf(d, "%s %s", desc, end);
	return d;
}

static void
add_cmd(struct cli *cl, int is_file, char *arg)
{
	struct cli_cmd *v = realloc(cl->cmds, (cl->ncmds + 1) * sizeof(*v));

	if (v == NULL)
		exit(E_ERROR);
	cl->cmds = v;
	v[cl->ncmds].is_file = is_file;
	v[cl->ncmds].arg = arg;
	v[cl->ncmds].text = NULL;
	v[cl->ncmds].generated = 0;
	cl->ncmds++;
}

static int
set_opt(struct cli *cl, const char *what, const char *name, const char *val,
	const char *shown)
{
	char err[256];

	if (mt_opts_set(&cl->opts, name, val, NULL, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "dtrace: failed to set %s %s: %s\n", what, shown, err);
	return -1;
}

/* Pass 2: everything but the mode flags, in order. */
static int
apply_options(struct cli *cl, int argc, char **argv)
{
	char *p;
	int c, dashdash = 0;

	for (optind = 1; optind < argc && !dashdash; optind++) {
		while ((c = next_opt(argc, argv, &dashdash)) != -1) {
			switch (c) {
			case 'b':
				if (set_opt(cl, "-b", "bufsize", optarg, optarg))
					return -1;
				break;
			case 'C':
				cl->opts.cpp = 1;
				break;
			case 'D':
				if (set_opt(cl, "-D", "define", optarg, optarg))
					return -1;
				break;
			case 'U':
				if (set_opt(cl, "-U", "undef", optarg, optarg))
					return -1;
				break;
			case 'I':
				if (set_opt(cl, "-I", "incdir", optarg, optarg))
					return -1;
				break;
			case 'F':
				cl->opts.flowindent = 1;
				break;
			case 'i':
				if ((p = pspec_from_id(cl, optarg)) == NULL)
					return -1;
				add_cmd(cl, 0, p);
				break;
			case 'n': case 'P': case 'm': case 'f':
				add_cmd(cl, 0, c == 'n' ? strdup(optarg) :
					pspec_from(c, optarg));
				break;
			case 's':
				add_cmd(cl, 1, strdup(optarg));
				break;
			case 'q':
				cl->opts.quiet = 1;
				break;
			case 'o':
				cl->ofile = optarg;
				break;
			case 'S':
				cl->disasm = 1;
				break;
			case 'd':
				cl->dump = 1;
				break;
			case 'w':
				cl->opts.destructive = 1;
				break;
			case 'x':
				if ((p = strchr(optarg, '=')) != NULL)
					*p++ = '\0';
				if (set_opt(cl, "-x", optarg, p, optarg))
					return -1;
				break;
			case 'X':
				if (set_opt(cl, "-X", "stdc", optarg, optarg))
					return -1;
				break;
			case 'Z':
				cl->opts.zdefs = 1;
				break;
			default:
				break;
			}
		}
	}
	return 0;
}

/*
 * Take the live target's long options out of argv (getopt only knows
 * dtrace's short ones): the machine options (machopt.h), then the
 * session's own.  Returns -1 after saying what is wrong: an unknown
 * option, a missing or bad value.
 */
static int
take_long_options(struct cli *cl, int *argcp, char **argv)
{
	static const char *const valued[] = { "--events", "--disk", "--vm", NULL };
	int argc, j = 1;
	char err[512];

	if (mt_mopt_extract(&cl->m.mach, argcp, argv, err, sizeof(err)) != 0) {
		fprintf(stderr, "dtrace: %s\n", err);
		return -1;
	}
	if (cl->m.mach.workload || cl->m.mach.cpus)
		cl->m.force = 1;
	argc = *argcp;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL, *eq;
		size_t n;
		int k;

		if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
			argv[j++] = argv[i];
			continue;
		}
		eq = strchr(a, '=');
		n = eq ? (size_t)(eq - a) : strlen(a);
		if ((n == 6 && strncmp(a, "--mach", n) == 0) ||
		    (n == 10 && strncmp(a, "--snapshot", n) == 0)) {
			if (eq) {
				fprintf(stderr, "dtrace: option %.*s takes no "
					"value\n", (int)n, a);
				return -1;
			}
			if (n == 6)
				cl->m.force = 1;
			else
				cl->m.disk_snapshot = 1;
			continue;
		}
		for (k = 0; valued[k]; k++)
			if (strlen(valued[k]) == n && strncmp(a, valued[k], n) == 0)
				break;
		if (valued[k] == NULL) {
			fprintf(stderr, "dtrace: unknown option %.*s\n", (int)n,
				a);
			return -1;
		}
		if (eq)
			v = eq + 1;
		else if (i + 1 < argc)
			v = argv[++i];
		else {
			fprintf(stderr, "dtrace: option %s needs a value\n", a);
			return -1;
		}
		if (k == 1) {
			cl->m.disk = v;
		} else if (k == 2) {
			cl->m.vm = v;
			cl->m.force = 1;
		} else {
			if (!cl->record) {
				fprintf(stderr, "dtrace: --events is an option of "
					"machtrace record\n");
				return -1;
			}
			cl->events_list = v;
			if (rec_events_parse(v, &cl->events, err, sizeof(err))) {
				fprintf(stderr, "machtrace: record: %s\n", err);
				return -1;
			}
		}
	}
	argv[j] = NULL;
	*argcp = j;
	return 0;
}

/*
 * record: its trace directory, the clauses --events generates (compiled
 * first: record.c knows them by their index), its client.
 */
static int
record_setup(struct cli *cl)
{
	struct tool_record_args a = { cl->ofile, cl->events, cl->events_list,
				      &cl->opts, cl->ncmds, stderr };
	struct cli_cmd gen;
	char *text, *name;

	if (tool_record_setup(&cl->rec, &a, &text, &name, &cl->rec_hook) != 0) {
		free(text);
		return -1;
	}
	cl->ofile = NULL;
	cl->hook = &cl->rec_hook;
	if (text == NULL)
		return 0;
	add_cmd(cl, 1, name);
	gen = cl->cmds[cl->ncmds - 1];
	gen.text = text;
	gen.generated = 1;
	memmove(cl->cmds + 1, cl->cmds, (cl->ncmds - 1) * sizeof(gen));
	cl->cmds[0] = gen;
	return 0;
}

static int
unsupported(const char *what)
{
	fprintf(stderr, "dtrace: %s is not supported by machtrace\n", what);
	return E_USAGE;
}

/* What add_cmd, the -s files, record_setup, --disk and the options allocated. */
static void
cli_free(struct cli *cl)
{
	for (int i = 0; i < cl->ncmds; i++) {
		if (cl->cmds[i].text != cl->cmds[i].arg)
			free(cl->cmds[i].text);
		free(cl->cmds[i].arg);
	}
	free(cl->cmds);
	free(cl->args);
	mt_session_machine_free(&cl->m);
	mt_opts_free(&cl->opts);
}

static int dtrace_main(struct cli *cl, int argc, char **argv);

/*
 * machtrace's subcommands (argv[0]: the subcommand); record is not one:
 * it is the session's command line with the record tool as its client.
 */
static int
top_main(int argc, char **argv)
{
	struct mt_session_intr intr = { &cli_intr, cli_catch_signals };

	return tool_top_main(argc, argv, strcmp(argv[0], "health") == 0, intr);
}

static int
baseline_main(int argc, char **argv)
{
	struct mt_session_intr intr = { &cli_intr, cli_catch_signals };

	return tool_baseline_main(argc, argv, intr);
}

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
} subs[] = {
	{ "boot", mt_mach_main }, { "kernel-info", mt_mach_main },
	{ "vm", cli_vm_main }, { "kernel", cli_kernel_main },
	{ "export", tool_export_main }, { "top", top_main },
	{ "health", top_main }, { "baseline", baseline_main },
	{ "report", tool_report_main }, { "msgdecode", cli_msgdecode_main },
};

int
main(int argc, char **argv)
{
	struct cli cl;
	FILE *err_stream;
	int rc;

	memset(&cl, 0, sizeof(cl));
	cl.pname = basename(argv[0]);
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("machtrace %s\n", MT_VERSION);
		return E_SUCCESS;
	}
	/* every message machtrace writes may quote what others chose */
	if ((err_stream = mt_esc_stream(stderr)) != NULL)
		stderr = err_stream;
	rc = dtrace_main(&cl, argc, argv);
	cli_free(&cl);
	return rc;
}

/* machtrace's subcommands, else dtrace(1)'s command line. */
static int
dtrace_main(struct cli *cl, int argc, char **argv)
{
	int c, modes = 0, help = 0, dashdash = 0;

	for (size_t i = 0; argc >= 2 && i < sizeof(subs) / sizeof(*subs); i++)
		if (strcmp(argv[1], subs[i].name) == 0)
			return subs[i].main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "record") == 0) {
		/* the session's own options follow */
		memmove(argv + 1, argv + 2, (size_t)(argc - 1) * sizeof(*argv));
		argc--;
		cl->record = 1;
	}
	if (argc == 1)
		return usage(stderr, cl->pname);
	if (take_long_options(cl, &argc, argv) != 0)
		return E_USAGE;
	mt_opts_init(&cl->opts);
	mt_opts_setenv(&cl->opts, "DTRACE_OPT_");
	cl->exec = 1;
	cl->out = stdout;
	cl->args = calloc(argc + 1, sizeof(char *));
	if (cl->args == NULL)
		return E_ERROR;
	cl->args[cl->nargs++] = argv[0];
	argv[0] = (char *)cl->pname;

	/* pass 1: modes, unsupported flags, operands */
	opterr = 1;
	for (optind = 1; optind < argc; optind++) {
		while ((c = next_opt(argc, argv, &dashdash)) != -1) {
			switch (c) {
			case '3': case '6':
				if (strcmp(optarg, c == '3' ? "2" : "4")) {
					fprintf(stderr, "%s: illegal option -- "
						"%c%s\n", cl->pname, c, optarg);
					return usage(stderr, cl->pname);
				}
				break;
			case 'e': cl->exec = 0; break;
			case 'l': cl->list = 1; modes++; break;
			case 'v': cl->verbose++; break;
			case 'V': cl->version = 1; modes++; break;
			case 'h': help = 1; break;
			case 'G': return unsupported("-G (ELF linking)");
			case 'c': case 'p':
				if (cli_take_target(cl, c, optarg) != 0)
					return E_USAGE;
				break;
			case 'a': case 'A':
				return unsupported("anonymous tracing (-a/-A)");
			case 'B': return unsupported("-B");
			case '?':
				return usage(stderr, cl->pname);
			default:
				break;
			}
		}
		if (dashdash) {
			while (optind < argc)
				cl->args[cl->nargs++] = argv[optind++];
			break;
		}
		if (optind < argc)
			cl->args[cl->nargs++] = argv[optind];
	}
	if (modes > 1) {
		fprintf(stderr, "dtrace: only one of the [-GhlV] options can "
			"be specified at a time\n");
		return E_USAGE;
	}
	if (cl->version) {
		printf("dtrace: Oracle D 2.0\n");
		if (cl->verbose)
			printf("This is machtrace, DTrace for GNU Mach\n");
		return E_SUCCESS;
	}
	cl->m.verbose = cl->verbose;
	if (mt_session_machine_disk(&cl->m, stderr) != 0)
		return E_USAGE;
	if (apply_options(cl, argc, argv) != 0)
		return E_ERROR;
	if (mt_session_check_msgids(&cl->opts, stderr) != 0)
		return E_ERROR;
	if (cl->record && !cl->list && record_setup(cl) != 0)
		return E_USAGE;
	if (help) {
		if (cl->ncmds == 0) {
			usage(stdout, cl->pname);
			return E_SUCCESS;
		}
		return unsupported("-h (header generation)");
	}
	if (getenv("_DTRACE_TESTING"))
		cl->opts.quietresize = 1;
	for (int i = 0; i < cl->ncmds; i++) {
		struct cli_cmd *cmd = &cl->cmds[i];

		if (cmd->text != NULL)
			continue;	/* generated (record --events) */
		if (!cmd->is_file) {
			cmd->text = cmd->arg;
			continue;
		}
		if ((cmd->text = mt_session_read_source(cmd->arg, stderr)) == NULL)
			return E_ERROR;
	}
	if (mt_session_machine_vm(&cl->m, stderr) != 0)
		return E_USAGE;
	if (cli_target_module(cl) != 0)
		return E_ERROR;
	if (cl->list)
		return cli_list(cl);
	if (cl->record) {
		for (int i = cl->events ? 1 : 0; i < cl->ncmds; i++)
			tool_record_program(&cl->rec, cl->cmds[i].is_file,
					    cl->cmds[i].is_file ? cl->cmds[i].arg :
					    cl->cmds[i].text);
		tool_record_machine(&cl->rec, &cl->m);
	}
	return cli_run(cl);
}
