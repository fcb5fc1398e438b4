/*
 * QEMU's -initrd string for the shim: "KERNEL args,MODULE args,...".
 * QEMU splits it at ',' and passes each part verbatim as a multiboot module
 * string (no quote removal, no $ expansion); a literal comma is written ",,".
 */
#include <string.h>

#include "machtrace/mach.h"
#include "targets/mach/mach_int.h"

/* Appends one module string; returns -1 when buf is too small. */
int mt_initrd_append(char *buf, size_t len, const char *module, int first)
{
	size_t n = strlen(buf);

	if (!first) {
		if (n + 1 >= len)
			return -1;
		buf[n++] = ',';
	}
	for (const char *s = module; *s; s++) {
		if (n + 2 >= len)
			return -1;
		if (*s == ',')
			buf[n++] = ',';
		buf[n++] = *s;
	}
	buf[n] = 0;
	return 0;
}

/* The file name of a module string (its first word). */
int mt_module_path(const char *module, char *path, size_t len)
{
	size_t n = strcspn(module, " \t");

	if (n == 0 || n >= len)
		return -1;
	memcpy(path, module, n);
	path[n] = 0;
	return 0;
}

/*
 * The words machload knows (guest/machload.c run_word): NAME=N for its
 * counted phases, spin=N (rt's server cost), "panic", "hang", "exit" and "serve[=MS]".  machload only prints an unknown word
 * on the guest console, so the host refuses it before booting.
 */
int mt_workload_check(const char *words, char *err, size_t len)
{
	static const char *const counted[] = {
		"rt=", "pingpong=", "pages=", "threads=", "tasks=",
		"ports=", "taskinfo=", "vmmaps=", "rpcs=", "forks=", "cpus=", "contend=", "hammer=", "spin=", NULL
	};
	const char *p = words ? words : "";

	while (*p) {
		size_t n = strcspn(p, " \t");
		int ok = 0;

		if (n == 0) {
			p++;
			continue;
		}
		if ((n >= 5 && strncmp(p, "serve", 5) == 0 &&
		     (n == 5 || (p[5] == '=' && n > 6 && n <= 11 &&
				 strspn(p + 6, "0123456789") == n - 6))) ||
		    (n == 5 && strncmp(p, "panic", 5) == 0) ||
		    (n == 4 && strncmp(p, "hang", 4) == 0) ||
		    (n == 4 && strncmp(p, "exit", 4) == 0))
			ok = 1;
		for (int i = 0; !ok && counted[i]; i++) {
			size_t k = strlen(counted[i]), d = k;

			if (n <= k || strncmp(p, counted[i], k) != 0)
				continue;
			while (d < n && p[d] >= '0' && p[d] <= '9')
				d++;
			ok = d == n && n - k <= 9;
		}
		if (!ok) {
			mt_seterr(err, len, "unknown workload word '%.*s' (machload "
				  "knows rt=N pingpong=N pages=N threads=N "
				  "tasks=N ports=N taskinfo=N vmmaps=N rpcs=N forks=N cpus=N contend=N hammer=N spin=N "
				  "panic hang exit serve[=MS])", (int)n, p);
			return -1;
		}
		p += n;
	}
	return 0;
}
