/*
 * machtrace kernel fetch|list: the kernel cache of the build tree, or of
 * the user for an installed machtrace (mt_fetch_script()).
 *
 *   kernel fetch [--suite SUITE] [--version V] [--kernels DIR | --cache DIR]
 *                [--variant smp]
 *       runs the source tree's scripts/fetch-kernel.sh (the build tree's
 *       parent), its options as they are: no option, trixie's tested kernel
 *       into build/kernel; --suite, that suite's newest (or exactly V) into
 *       build/kernels/SUITE-V with the symlink build/kernels/SUITE;
 *       --variant smp, the suite's SMP image into build/kernels/SUITE-smp.
 *       Installed: LIB/fetch-kernel.sh, into ~/.cache/machtrace/kernels
 *       (the tested kernel in its VERSION directory) unless told where
 *   kernel list
 *       the cached kernels: path and package version
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/machtrace/cli.h"
#include "machtrace/mach.h"

static void list_one(const char *dir)
{
	char path[PATH_MAX + 16], ver[128] = "";
	FILE *f;

	snprintf(path, sizeof path, "%s/VERSION", dir);
	if (!(f = fopen(path, "r")))
		return;
	if (!fgets(ver, sizeof ver, f))
		ver[0] = 0;
	fclose(f);
	ver[strcspn(ver, "\n")] = 0;
	printf("%-24s %s/gnumach-dbg\n", ver, dir);
}

/* A directory of build/kernels a suite's symlink names (listed by it). */
static int linked(const char *dir, const char *name)
{
	char l[PATH_MAX + 300], t[NAME_MAX + 1];
	struct dirent *e;
	DIR *d = opendir(dir);
	int found = 0;
	ssize_t n;

	while (d && !found && (e = readdir(d))) {
		snprintf(l, sizeof l, "%s/%s", dir, e->d_name);
		n = e->d_type == DT_LNK ? readlink(l, t, sizeof t - 1) : -1;
		found = n > 0 && (t[n] = 0, strcmp(t, name) == 0);
	}
	if (d)
		closedir(d);
	return found;
}

/* build/kernel (NULL: none), then each suite (KERNELS/SUITE) and unlinked version. */
static int kernel_list(const char *stock, const char *dir)
{
	char sub[2 * PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (stock)
		list_one(stock);
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && (e->d_type == DT_LNK || !linked(dir, e->d_name))) {
			snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
			list_one(sub);
		}
	closedir(d);
	return 0;
}

/* Where an installed machtrace's fetch goes when the user did not say. */
static int has_dest(int argc, char **argv, int *suite)
{
	int dest = 0;

	for (int i = 2; i < argc; i++) {
		dest |= strcmp(argv[i], "--cache") == 0 || strcmp(argv[i], "--kernels") == 0;
		*suite |= strcmp(argv[i], "--suite") == 0 || strcmp(argv[i], "--version") == 0;
	}
	return dest;
}

int cli_kernel_main(int argc, char **argv)
{
	char script[PATH_MAX + 32], stock[PATH_MAX], kernels[PATH_MAX], build[PATH_MAX];
	char *args[argc + 3];
	int installed = mt_fetch_script(script, sizeof script, stock, sizeof stock);
	int n = 0, suite = 0;

	if (installed && mt_user_kernels(kernels, sizeof kernels) < 0) {
		fprintf(stderr, "machtrace: kernel: no $XDG_CACHE_HOME or $HOME for the kernel cache\n");
		return 1;
	}
	if (!installed)
		snprintf(kernels, sizeof kernels, "%s/kernels", mt_build_dir(build, sizeof build));
	if (argc >= 2 && strcmp(argv[1], "list") == 0 && argc == 2)
		return kernel_list(installed ? NULL : stock, kernels);
	if (argc < 2 || strcmp(argv[1], "fetch") != 0) {
		fprintf(stderr, "usage: machtrace kernel fetch [--suite SUITE] [--version V] "
			"[--kernels DIR | --cache DIR] [--variant smp]\n"
			"       machtrace kernel list\n");
		return 2;
	}
	if (access(script, X_OK) != 0) {
		fprintf(stderr, "machtrace: kernel fetch needs the source tree's "
			"scripts/fetch-kernel.sh, not found at %s\n", script);
		return 1;
	}
	args[n++] = script;
	for (int i = 2; i < argc; i++)
		args[n++] = argv[i];
	if (installed && !has_dest(argc, argv, &suite)) {
		args[n++] = suite ? "--kernels" : "--cache";
		args[n++] = suite ? kernels : stock;
	}
	args[n] = NULL;
	execv(script, args);
	perror(script);
	return 1;
}
