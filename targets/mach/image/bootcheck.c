/*
 * What booting a kernel traced needs of it, checked on the host before
 * QEMU starts, by the shim's own rules (targets/mach/shim/x86_64/
 * prologue.h): the function whose first call reserves the runtime's
 * memory, and the blob's boot hook (its header's hook_name) with a
 * prologue the shim can displace.  Without this the shim would stop the
 * boot with less to say.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machtrace/kimg.h"
#include "machtrace/lkabi.h"
#include "targets/mach/mach_int.h"
#include "targets/mach/shim/x86_64/prologue.h"

const char *mt_kimg_version(const struct mt_kimg *k, char *buf, size_t len)
{
	const uint8_t *s;
	uint64_t va;
	size_t n = 0;

	if (mt_kimg_symbol(k, "version", &va) == 0 && (s = mt_kimg_bytes(k, va, 1)))
		for (; n + 1 < len && (s = mt_kimg_bytes(k, va + n, 1)) && *s >= ' ' && *s < 127; n++)
			buf[n] = (char)*s;
	snprintf(buf + n, len - n, "%s", n ? "" : "a GNU Mach without a version string");
	return buf;
}

/* The blob file's boot hook name; -1 with err if unreadable. */
static int blob_hook(const char *blob, char *name, size_t len, char *err, size_t errlen)
{
	struct lk_blob_hdr h;
	int fd = open(blob, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, &h, sizeof h, 0) : -1;

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof h || h.magic != LK_BLOB_MAGIC) {
		mt_seterr(err, errlen, "runtime blob %s unreadable (run make)", blob);
		return -1;
	}
	snprintf(name, len, "%.*s", (int)sizeof h.hook_name, h.hook_name);
	return 0;
}

uint64_t mt_kimg_ncpus(struct mt_kimg *k)
{
	uint64_t one = 0, va, size;

	if (mt_kimg_struct_size(k, "percpu", &one) < 0 || one == 0 ||
	    mt_kimg_symbol_size(k, "percpu_array", &va, &size) < 0 || size < one)
		return 1;
	return size / one;
}

static int cpus_fit(struct mt_kimg *k, unsigned cpus, char *err, size_t errlen)
{
	uint64_t n = mt_kimg_ncpus(k);
	char ver[128];

	if (cpus <= n)
		return 0;
	if (n == 1)
		mt_seterr(err, errlen, "--cpus %u: %s (%s) is a uniprocessor GNU Mach (built "
			  "for 1 CPU); more CPUs need an SMP kernel such as Debian's "
			  "gnumach-image-1.8-amd64-smp-dbg (machtrace kernel fetch --suite sid "
			  "--variant smp)", cpus, mt_kimg_version(k, ver, sizeof ver),
			  mt_kimg_path(k));
	else
		mt_seterr(err, errlen, "--cpus %u: %s (%s) is built for at most %llu CPUs",
			  cpus, mt_kimg_version(k, ver, sizeof ver), mt_kimg_path(k),
			  (unsigned long long)n);
	return -1;
}

int mt_kernel_cpus_check(const char *kernel, unsigned cpus, char *err, size_t errlen)
{
	struct mt_kimg *k;
	int rc;

	if (cpus <= 1)
		return 0;
	k = mt_kimg_open(kernel, err, errlen);
	rc = k ? cpus_fit(k, cpus, err, errlen) : -1;
	mt_kimg_close(k);
	return rc;
}

int mt_kimg_boot_check(struct mt_kimg *k, const char *blob, unsigned cpus, char *err,
		       size_t errlen)
{
	char hook[40], ver[128], why[256];
	const struct mt_kfunc *f;
	const uint8_t *code;
	uint64_t va;

	if (cpus_fit(k, cpus, err, errlen) < 0)
		return -1;
	if (blob_hook(blob, hook, sizeof hook, err, errlen) < 0)
		return -1;
	if (mt_kimg_symbol(k, SHIM_RESERVE_FUNC, &va) < 0)
		snprintf(why, sizeof why, "it has no %s, whose first call the boot shim hooks "
			 "to keep the runtime's memory from the kernel", SHIM_RESERVE_FUNC);
	else if (!(f = mt_kimg_lookup(k, hook)))
		snprintf(why, sizeof why, "it has no %s, the runtime's boot hook", hook);
	else if (!(code = mt_kimg_bytes(k, f->addr, SHIM_DISPLACED_MAX)) ||
		 !shim_prologue_len(code))
		snprintf(why, sizeof why, "%s, the runtime's boot hook, does not start with "
			 "instructions the boot shim can move", hook);
	else
		return 0;
	mt_seterr(err, errlen, "%s (%s) cannot be traced: %s; listing its probes (-l) "
		  "still works", mt_kimg_version(k, ver, sizeof ver), mt_kimg_path(k), why);
	return -1;
}

int mt_kernel_boot_check(const char *kernel, const char *blob, unsigned cpus, char *err,
			 size_t errlen)
{
	struct mt_kimg *k = mt_kimg_open(kernel, err, errlen);
	int rc = k ? mt_kimg_boot_check(k, blob, cpus, err, errlen) : -1;

	mt_kimg_close(k);
	return rc;
}

int mt_kernel_kmsg(const char *kernel, uint64_t *va, uint64_t *size)
{
	char err[256];
	struct mt_kimg *k = mt_kimg_open(kernel, err, sizeof err);
	int rc = k ? mt_kimg_symbol_size(k, "kmsg_buffer", va, size) : -1;

	mt_kimg_close(k);
	return rc;
}
