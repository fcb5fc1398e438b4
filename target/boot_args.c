/*
 * QEMU's -initrd string for the shim: "KERNEL args,MODULE args,...".
 * QEMU splits it at ',' and passes each part verbatim as a multiboot module
 * string (no quote removal, no $ expansion); a literal comma is written ",,".
 */
#include <string.h>

#include "target/target.h"

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
