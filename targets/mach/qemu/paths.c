/*
 * Where machtrace's run-time files are.  Two layouts hold them:
 *
 *   build tree   build/{bin,boot,guest,live,kernel}: the executable is
 *                build/bin/machtrace (or a test deeper in build/)
 *   installed    PREFIX/bin/machtrace and PREFIX/lib/machtrace/{boot,
 *                guest,live,fetch-kernel.sh} (make install, the .deb)
 *
 * Both are found from /proc/self/exe, so a DESTDIR-staged tree works too.
 * The stock kernel is build/kernel in a build tree; an installed machtrace
 * keeps it in the user's cache, $XDG_CACHE_HOME/machtrace/kernels/VERSION
 * (~/.cache when unset), which it fills with fetch-kernel.sh when a kernel
 * is first needed (unless $MACHTRACE_NOFETCH is set: shell completion).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "machtrace/mach.h"
#include "targets/mach/mach_int.h"

#ifndef MT_KERNEL_TESTED
#error "MT_KERNEL_TESTED: the kernel version scripts/fetch-kernel.sh prefers"
#endif

static int exists(const char *dir, const char *name)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof p, "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* A build tree has bin/ and boot/ or kernel/. */
static int is_build(const char *dir)
{
	return exists(dir, "boot") || exists(dir, "kernel");
}

/* PREFIX/lib/machtrace of an installed PREFIX/bin/machtrace, into buf. */
static int installed_dir(const char *exe, char *buf, size_t len)
{
	const char *slash = strrchr(exe, '/');

	if (!slash || (size_t)snprintf(buf, len, "%.*s/../lib/machtrace",
				       (int)(slash - exe), exe) >= len)
		return 0;
	return exists(buf, "live/blob.bin");
}

const char *mt_build_dir(char *buf, size_t len)
{
	const char *env = getenv("MACHTRACE_BUILD");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return buf;
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		char *slash;
		exe[n] = 0;
		if (installed_dir(exe, buf, len))
			return buf;
		/* build/bin/machtrace, build/tests/unit/target/test_x, ... */
		for (int up = 0; up < 5 && (slash = strrchr(exe, '/')) && slash != exe; up++) {
			*slash = 0;
			if (is_build(exe)) {
				snprintf(buf, len, "%s", exe);
				return buf;
			}
		}
	}
	snprintf(buf, len, "build");
	return buf;
}

int mt_user_kernels(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg == '/')
		snprintf(buf, len, "%s/machtrace/kernels", xdg);
	else if (home && *home)
		snprintf(buf, len, "%s/.cache/machtrace/kernels", home);
	else
		return -1;
	return 0;
}

/* mt_user_kernels()/VERSION, VERSION the wanted one. */
static int cache_dir(char *buf, size_t len)
{
	const char *want = getenv("MACHTRACE_KERNEL_VERSION");
	char k[PATH_MAX];

	if (!want || !*want)
		want = MT_KERNEL_TESTED;
	if (mt_user_kernels(k, sizeof k) < 0)
		return -1;
	snprintf(buf, len, "%s/%s", k, want);
	return 0;
}

int mt_fetch_script(char *buf, size_t len, char *cache, size_t clen)
{
	char b[PATH_MAX];

	mt_build_dir(b, sizeof b);
	if (exists(b, "fetch-kernel.sh")) {
		snprintf(buf, len, "%s/fetch-kernel.sh", b);
		if (cache_dir(cache, clen) == 0)
			return 1;
		snprintf(cache, clen, "%s/kernel", b);	/* no $HOME: none */
		return -1;
	}
	snprintf(buf, len, "%s/../scripts/fetch-kernel.sh", b);
	snprintf(cache, clen, "%s/kernel", b);
	return 0;
}

/*
 * Runs SCRIPT --cache DIR, which says on stderr why when apt cannot fetch;
 * returns its success.
 */
static int fetch(char *script, const char *dir)
{
	int status;
	pid_t pid;

	fprintf(stderr, "machtrace: no GNU Mach kernel in %s: fetching Debian's gnumach packages\n",
		dir);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *argv[] = { script, "--cache", (char *)dir, NULL };
		execv(script, argv);
		fprintf(stderr, "machtrace: %s: %s\n", script, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

const char *mt_stock_kernel(char *buf, size_t len)
{
	char script[PATH_MAX + 32], dir[PATH_MAX];
	int installed = mt_fetch_script(script, sizeof script, dir, sizeof dir) > 0;

	snprintf(buf, len, "%s/gnumach-dbg", dir);
	if (installed && access(buf, R_OK) != 0 && !getenv("MACHTRACE_NOFETCH"))
		fetch(script, dir);
	return buf;
}

int mt_stock_kernel_check(const char *kernel, char *err, size_t errlen)
{
	char script[PATH_MAX + 32], dir[PATH_MAX];

	if (access(kernel, R_OK) == 0)
		return 0;
	mt_seterr(err, errlen, "no kernel at %s: %s, or give --kernel FILE", kernel,
		  mt_fetch_script(script, sizeof script, dir, sizeof dir) > 0 ?
		  "machtrace could not fetch Debian's gnumach packages (the reason is above)" :
		  "run scripts/setup.sh (or make setup) to fetch Debian's gnumach packages");
	return -1;
}
