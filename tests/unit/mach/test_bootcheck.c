/*
 * What the boot shim hooks, found on every kernel at hand by the shim's
 * own rules (mt_kimg_boot_check: the reservation function, the runtime
 * blob's boot hook and its movable prologue): the stock kernel and each
 * build/kernels/SUITE/gnumach-dbg that setup fetched (a "#" line for a
 * missing one); and the refusal, naming the kernel's version string, for
 * a copy of the stock kernel without the reservation function.
 */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machtrace/kimg.h"
#include "machtrace/mach.h"
#include "tests/unit/mach/stock_kernel.h"
#include "tests/unit/mt_test.h"

static const char *blob(char *buf, size_t len)
{
	char build[PATH_MAX - 32];

	snprintf(buf, len, "%s/live/blob.bin", mt_build_dir(build, sizeof build));
	return buf;
}

/* The kernel at path passes the boot check; its version is "GNU Mach ...". */
static int boots(const char *path)
{
	char b[PATH_MAX], err[1024], ver[128];
	struct mt_kimg *k = mt_kimg_open(path, err, sizeof err);
	int ok = k && mt_kimg_boot_check(k, blob(b, sizeof b), 1, err, sizeof err) == 0 &&
		 strncmp(mt_kimg_version(k, ver, sizeof ver), "GNU Mach ", 9) == 0;

	printf("# %s: %s\n", path, ok ? ver : err);
	mt_kimg_close(k);
	return ok;
}

TEST(bootcheck_stock_kernel)
{
	char path[PATH_MAX];

	CHECK(boots(mt_stock_kernel(path, sizeof path)));
}

TEST(bootcheck_fetched_kernels)
{
	char build[PATH_MAX - 64], dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *e;
	DIR *d;
	int n = 0, bad = 0;

	snprintf(dir, sizeof dir, "%s/kernels", mt_build_dir(build, sizeof build));
	if (!(d = opendir(dir))) {
		printf("# no %s (scripts/fetch-kernel.sh --suite SUITE)\n", dir);
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_type == DT_LNK)
			continue;
		snprintf(path, sizeof path, "%s/%s/gnumach-dbg", dir, e->d_name);
		if (access(path, R_OK) != 0)
			continue;
		n++;
		bad += !boots(path);
	}
	closedir(d);
	printf("# %d fetched kernels checked\n", n);
	CHECK(bad == 0);
}

TEST(bootcheck_refuses_kernel_without_reservation)
{
	char kpath[PATH_MAX], b[PATH_MAX], cmd[2 * PATH_MAX], err[1024], ver[128];
	char tmp[] = "/tmp/mt-noreg-XXXXXX";
	struct mt_kimg *k, *stock;
	int fd = mkstemp(tmp);

	CHECK(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof cmd, "objcopy --redefine-sym biosmem_register_boot_data=x_ %s %s",
		 mt_stock_kernel(kpath, sizeof kpath), tmp);
	CHECK(system(cmd) == 0);
	k = mt_kimg_open(tmp, err, sizeof err);
	stock = mt_kimg_open(kpath, err, sizeof err);
	unlink(tmp);
	CHECK(k && stock);
	CHECK(mt_kimg_boot_check(k, blob(b, sizeof b), 1, err, sizeof err) < 0);
	CHECK(strstr(err, mt_kimg_version(stock, ver, sizeof ver)) == err);
	CHECK(strstr(err, "it has no biosmem_register_boot_data") != NULL);
	CHECK(strstr(err, "listing its probes (-l) still works") != NULL);
	mt_kimg_close(k);
	mt_kimg_close(stock);
}

/* NCPUS from the image: the stock kernel's 1, sid's SMP image's 8; an SMP
   kernel boots traced on one CPU, more are refused plainly for now. */
TEST(bootcheck_cpus)
{
	char path[PATH_MAX], b[PATH_MAX], err[1024];
	struct mt_kimg *k = mt_kimg_open(mt_stock_kernel(path, sizeof path), err, sizeof err);

	CHECK(k && mt_kimg_ncpus(k) == 1);
	CHECK(k && mt_kimg_boot_check(k, blob(b, sizeof b), 2, err, sizeof err) < 0);
	CHECK(strstr(err, "is a uniprocessor GNU Mach (built for 1 CPU)") != NULL);
	mt_kimg_close(k);
	if (!smp_kernel(path, sizeof path, "bootcheck_cpus on an SMP kernel"))
		return;
	k = mt_kimg_open(path, err, sizeof err);
	CHECK(k && mt_kimg_ncpus(k) == 8);
	CHECK(k && mt_kimg_boot_check(k, blob(b, sizeof b), 1, err, sizeof err) == 0);
	CHECK(k && mt_kimg_boot_check(k, blob(b, sizeof b), 2, err, sizeof err) == 0);
	CHECK(k && mt_kimg_boot_check(k, blob(b, sizeof b), 9, err, sizeof err) < 0);
	CHECK(strstr(err, "is built for at most 8 CPUs") != NULL);
	mt_kimg_close(k);
}

MT_TEST_MAIN()
