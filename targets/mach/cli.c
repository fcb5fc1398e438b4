/*
 * The GNU Mach subcommands of the CLI:
 *
 *   machtrace boot [machine options] [--log FILE] [--reserve PHYS:SIZE]
 *                  [--quiet] [-- WORD...]
 *   machtrace boot --disk IMAGE [--snapshot] [--timeout SEC] [--log FILE] [--quiet]
 *   machtrace kernel-info [--kernel FILE] [FUNCTION | STRUCT.MEMBER]...
 * The machine options (--kernel, --module, --workload, --timeout,
 * --memory) are machopt.h's; the words after -- are --workload's.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "machtrace/disk.h"
#include "machtrace/kimg.h"
#include "machtrace/mach.h"
#include "machtrace/machopt.h"
#include "targets/mach/mach_int.h"

enum { EXIT_USAGE = 1, EXIT_INPUT = 2, EXIT_PANIC = 3, EXIT_TIMEOUT = 4, EXIT_SIGNAL = 130 };

static int usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "machtrace: %s\n", msg);
	fprintf(stderr,
		"usage: machtrace boot [machine options] [--log FILE] [--reserve PHYS:SIZE]\n"
		"                      [--quiet] [-- WORD...]\n"
		"       machtrace boot --disk IMAGE [--snapshot] [--timeout SEC] [--log FILE] [--quiet]\n"
		"       machtrace kernel-info [--kernel FILE] [FUNCTION | STRUCT.MEMBER]...\n"
		"machload words: rt=N pingpong=N pages=N threads=N tasks=N ports=N\n"
		"  taskinfo=N vmmaps=N rpcs=N forks=N cpus=N contend=N hammer=N spin=N\n"
		"  panic hang exit serve[=MS]\n");
	if (!msg) {
		fprintf(stderr, "machine options:\n");
		mt_mopt_help(stderr, "  ");
	}
	return EXIT_USAGE;
}

static int parse_reserve(const char *s, uint64_t *pa, uint64_t *size)
{
	char *end;

	*pa = strtoull(s, &end, 0);
	if (*end != ':')
		return -1;
	*size = strtoull(end + 1, &end, 0);
	return *end || !*size ? -1 : 0;
}

static int join_words(char *buf, size_t len, int argc, char **argv)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < argc; i++) {
		int w = snprintf(buf + n, len - n, "%s%s", i ? " " : "", argv[i]);
		if (w < 0 || (size_t)w >= len - n)
			return -1;
		n += w;
	}
	return 0;
}

static int boot_exit_code(const struct mt_boot_result *r)
{
	switch (r->status) {
	case MT_BOOT_REBOOTED:
		fprintf(stderr, "machtrace: guest rebooted after %.2f s", r->seconds);
		if (r->marker_seconds >= 0)
			fprintf(stderr, " (workload started at %.2f s)", r->marker_seconds);
		fprintf(stderr, "\n");
		return 0;
	case MT_BOOT_PANIC:
		fprintf(stderr, "machtrace: kernel panic: %s\n", r->reason);
		return EXIT_PANIC;
	case MT_BOOT_DEBUGGER:
		fprintf(stderr, "machtrace: kernel stopped in the debugger: %s\n", r->reason);
		return EXIT_PANIC;
	case MT_BOOT_TIMEOUT:
		fprintf(stderr, "machtrace: time limit reached after %.1f s; QEMU stopped\n",
			r->seconds);
		return EXIT_TIMEOUT;
	case MT_BOOT_INTERRUPTED:
		fprintf(stderr, "machtrace: %s; QEMU stopped\n", r->reason);
		return EXIT_SIGNAL;
	case MT_BOOT_QEMU_FAILED:
		fprintf(stderr, "machtrace: %s\n", r->reason);
		return EXIT_INPUT;
	case MT_BOOT_SHIM_FAILED:
		fprintf(stderr, "machtrace: the boot shim failed: %s\n", r->reason);
		return EXIT_INPUT;
	}
	return EXIT_INPUT;
}

/* boot --disk: what the image's grub.cfg boots, the image attached. */
static int boot_disk(struct mt_boot_opts *o, int words)
{
	struct mt_disk_plan *p = malloc(sizeof *p);
	struct mt_boot_result r;
	char err[1024];
	int rc;

	if (!o->disk)
		return usage("--snapshot goes with --disk IMAGE");
	if (o->kernel || o->nmodules || words)
		return usage("--disk boots the kernel and modules its grub.cfg names: it does "
			     "not go with --kernel, --module, --workload or workload words");
	if (!p) {
		fprintf(stderr, "machtrace: out of memory\n");
		return EXIT_INPUT;
	}
	if (mt_disk_plan(o->disk, p, err, sizeof err) < 0) {
		fprintf(stderr, "machtrace: --disk: %s\n", err);
		free(p);
		return EXIT_INPUT;
	}
	mt_disk_boot_opts(p, o);
	o->workload = NULL;
	if (mt_boot_run(o, &r, err, sizeof err) < 0) {
		fprintf(stderr, "machtrace: %s\n", err);
		rc = EXIT_INPUT;
	} else {
		rc = boot_exit_code(&r);
	}
	mt_disk_plan_free(p);
	free(p);
	return rc;
}

static int cmd_boot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "reserve", required_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "disk", required_argument, NULL, 'd' },
		{ "snapshot", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mt_boot_opts o = { .timeout_ms = 60000, .echo = stdout };
	struct mt_mopts m = { 0 };
	struct mt_boot_result r;
	char err[512], words[4096];
	int c;

	if (mt_mopt_extract(&m, &argc, argv, err, sizeof err) != 0)
		return usage(err);
	o.kernel = m.kernel;
	for (int i = 0; i < m.nmodules; i++)
		o.modules[i] = m.modules[i];
	o.nmodules = m.nmodules;
	if (m.timeout_ms)
		o.timeout_ms = m.timeout_ms;
	o.mem_mb = m.mem_mb;
	o.cpus = m.cpus;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'd': o.disk = optarg; break;
		case 's': o.disk_snapshot = 1; break;
		case 'l': o.log_path = optarg; break;
		case 'q': o.echo = NULL; break;
		case 'r':
			if (parse_reserve(optarg, &o.reserve_pa, &o.reserve_size) < 0)
				return usage("--reserve needs PHYS:SIZE, e.g. 0x2000000:0x400000");
			break;
		case 'h': return usage(NULL);
		default: return usage(NULL);
		}
	}
	if (join_words(words, sizeof words, argc - optind, argv + optind) < 0)
		return usage("workload arguments too long");
	if ((optind < argc || m.workload) && o.nmodules)
		return usage("workload words apply to the default workload only, not with --module");
	if (optind < argc && m.workload)
		return usage("--workload and words after -- both give machload's words");
	o.workload = m.workload ? m.workload : words;
	if (mt_workload_check(words, err, sizeof err) < 0)
		return usage(err);
	if (o.disk || o.disk_snapshot)
		return boot_disk(&o, optind < argc || m.workload);
	if (mt_boot_run(&o, &r, err, sizeof err) < 0) {
		fprintf(stderr, "machtrace: %s\n", err);
		return EXIT_INPUT;
	}
	return boot_exit_code(&r);
}

static const char *patch_name(enum mt_patch p)
{
	return p == MT_PATCH_JMP ? "jmp" : p == MT_PATCH_INT3 ? "int3" : "refused";
}

static void show_func(const struct mt_kfunc *f)
{
	printf("%s: addr 0x%" PRIx64 " size %" PRIu64 " patch %s", f->name, f->addr, f->size,
	       patch_name(f->patch));
	if (f->why)
		printf(" (%s)", f->why);
	if (f->displaced)
		printf(" displaces %u", f->displaced);
	printf(" returns %u", f->nrets);
	for (unsigned i = 0; i < f->nrets && i < 8; i++)
		printf("%s+0x%x", i ? "," : " at ", f->rets[i]);
	printf("\n  %s %s(", f->rettype ? f->rettype : "?", f->name);
	for (int i = 0; i < f->nargs; i++)
		printf("%s%s %s", i ? ", " : "", f->args[i].type, f->args[i].name);
	printf("%s)\n", f->nargs < 0 ? "?" : f->varargs ? ", ..." : "");
}

static int show_item(struct mt_kimg *k, const char *item)
{
	const char *dot = strchr(item, '.');
	const struct mt_kfunc *f;

	if (dot) {
		char sname[256], type[256];
		uint64_t off, size = 0;
		snprintf(sname, sizeof sname, "%.*s", (int)(dot - item), item);
		if (mt_kimg_member(k, sname, dot + 1, &off, type, sizeof type) < 0) {
			fprintf(stderr, "machtrace: no member %s in struct %s\n", dot + 1, sname);
			return -1;
		}
		mt_kimg_struct_size(k, sname, &size);
		printf("struct %s (size %" PRIu64 "): %s at offset %" PRIu64 ", type %s\n",
		       sname, size, dot + 1, off, type);
		return 0;
	}
	if (!(f = mt_kimg_lookup(k, item))) {
		fprintf(stderr, "machtrace: no function %s in the kernel\n", item);
		return -1;
	}
	show_func(f);
	return 0;
}

static int cmd_kernel_info(int argc, char **argv)
{
	const char *kernel;
	char path[4096], err[512];
	size_t counts[3] = { 0 }, inl = 0, inl_only = 0;
	struct mt_mopts m = { 0 };
	struct mt_kimg *k;
	int rc = 0, i = 1;

	if (mt_mopt_extract(&m, &argc, argv, err, sizeof err) != 0)
		return usage(err);
	if (m.nmodules || m.workload || m.timeout_ms || m.mem_mb)
		return usage("kernel-info reads a kernel image: of the machine options "
			     "only --kernel applies");
	if (!(kernel = m.kernel))
		kernel = mt_stock_kernel(path, sizeof path);
	if (!(k = mt_kimg_open(kernel, err, sizeof err))) {
		fprintf(stderr, "machtrace: %s\n", err);
		return EXIT_INPUT;
	}
	if (i == argc) {
		for (size_t f = 0; f < mt_kimg_nfuncs(k); f++) {
			const struct mt_kfunc *fn = mt_kimg_func(k, f);
			counts[fn->patch]++;
			inl += fn->ninstances;
			inl_only += fn->inline_only;
		}
		printf("kernel %s: %zu functions (%zu inline only; %zu inline instances): "
		       "%zu jmp, %zu int3 only, %zu refused\n", kernel, mt_kimg_nfuncs(k),
		       inl_only, inl, counts[0], counts[1], counts[2]);
	}
	for (; i < argc; i++)
		if (show_item(k, argv[i]) < 0)
			rc = EXIT_INPUT;
	mt_kimg_close(k);
	return rc;
}

int mt_mach_main(int argc, char **argv)
{
	if (argc < 1)
		return usage(NULL);
	if (strcmp(argv[0], "boot") == 0)
		return cmd_boot(argc, argv);
	if (strcmp(argv[0], "kernel-info") == 0)
		return cmd_kernel_info(argc, argv);
	return usage("unknown subcommand");
}
