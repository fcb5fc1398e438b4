/*
 * machtrace kernel fetch|list: the kernel cache of the build tree.
 *
 *   kernel fetch [--suite SUITE] [--version V] [--kernels DIR | --cache DIR]
 *       runs the source tree's scripts/fetch-kernel.sh (the build tree's
 *       parent), its options as they are: no option, trixie's tested kernel
 *       into build/kernel; --suite, that suite's newest (or exactly V) into
 *       build/kernels/SUITE-V with the symlink build/kernels/SUITE
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

/* build/kernel, then each suite (build/kernels/SUITE) and unlinked version. */
static int kernel_list(const char *build)
{
	char dir[PATH_MAX], sub[2 * PATH_MAX];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof dir, "%s/kernel", build);
	list_one(dir);
	snprintf(dir, sizeof dir, "%s/kernels", build);
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

int cli_kernel_main(int argc, char **argv)
{
	char build[PATH_MAX - 64], script[PATH_MAX];

	mt_build_dir(build, sizeof build);
	if (argc >= 2 && strcmp(argv[1], "list") == 0 && argc == 2)
		return kernel_list(build);
	if (argc < 2 || strcmp(argv[1], "fetch") != 0) {
		fprintf(stderr, "usage: machtrace kernel fetch [--suite SUITE] [--version V] "
			"[--kernels DIR | --cache DIR]\n       machtrace kernel list\n");
		return 2;
	}
	snprintf(script, sizeof script, "%s/../scripts/fetch-kernel.sh", build);
	if (access(script, X_OK) != 0) {
		fprintf(stderr, "machtrace: kernel fetch needs the source tree's "
			"scripts/fetch-kernel.sh, not found at %s\n", script);
		return 1;
	}
	argv[1] = script;
	execv(script, argv + 1);
	perror(script);
	return 1;
}
