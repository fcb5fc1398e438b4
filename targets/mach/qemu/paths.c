/* Where the build tree is: build/{kernel,boot,guest} above the executable. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machtrace/mach.h"

static int is_dir(const char *p)
{
	return access(p, F_OK) == 0;
}

/* A build tree has bin/ and boot/ or kernel/. */
static int is_build(const char *dir)
{
	char p[PATH_MAX + 16];

	snprintf(p, sizeof p, "%s/boot", dir);
	if (is_dir(p))
		return 1;
	snprintf(p, sizeof p, "%s/kernel", dir);
	return is_dir(p);
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

const char *mt_stock_kernel(char *buf, size_t len)
{
	char b[PATH_MAX];

	snprintf(buf, len, "%s/kernel/gnumach-dbg", mt_build_dir(b, sizeof b));
	return buf;
}
