/*
 * Gzip'd kernels (Debian's boot/gnumach-*.gz): the image reader and the
 * QEMU command take them through mt_kernel_elf(), which inflates a .gz
 * once into the user's cache (here a private XDG_CACHE_HOME) and passes
 * any other path through; damaged or oversized gzip data is an error.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "machtrace/kimg.h"
#include "machtrace/mach.h"
#include "tests/unit/mt_test.h"

static char dir[] = "/tmp/mt-kzip-XXXXXX";

/* A private cache and stock.gz, the stock kernel gzip'd; 0 if no kernel. */
static int setup(void)
{
	static int done, ok;
	char kpath[PATH_MAX], cmd[3 * PATH_MAX], cache[PATH_MAX];

	if (done)
		return ok;
	done = 1;
	if (!mkdtemp(dir) || access(mt_stock_kernel(kpath, sizeof kpath), R_OK) != 0) {
		printf("# no stock kernel (run scripts/setup.sh)\n");
		return 0;
	}
	snprintf(cache, sizeof cache, "%s/cache", dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	snprintf(cmd, sizeof cmd, "gzip -c %s > %s/stock.gz && head -c 100000 %s/stock.gz > %s/cut.gz",
		 kpath, dir, dir, dir);
	ok = system(cmd) == 0;
	return ok;
}

TEST(kzip_gzip_kernel_is_inflated_once)
{
	char gz[PATH_MAX], out[PATH_MAX], again[PATH_MAX], kpath[PATH_MAX], cmd[3 * PATH_MAX];
	char err[512];
	struct stat st1, st2;

	CHECK(setup());
	snprintf(gz, sizeof gz, "%s/stock.gz", dir);
	CHECK(mt_kernel_elf(gz, out, sizeof out, err, sizeof err) == 0);
	CHECK(strncmp(out, dir, strlen(dir)) == 0 && strstr(out, "/machtrace/gunzipped/stock.gz-"));
	snprintf(cmd, sizeof cmd, "cmp -s %s %s", out, mt_stock_kernel(kpath, sizeof kpath));
	CHECK(system(cmd) == 0);
	CHECK(stat(out, &st1) == 0);
	CHECK(mt_kernel_elf(gz, again, sizeof again, err, sizeof err) == 0);
	CHECK(strcmp(out, again) == 0);
	CHECK(stat(again, &st2) == 0 && st2.st_ino == st1.st_ino);
}

TEST(kzip_image_reader_takes_gzip)
{
	char gz[PATH_MAX], kpath[PATH_MAX], err[512];
	struct mt_kimg *k, *plain;

	CHECK(setup());
	snprintf(gz, sizeof gz, "%s/stock.gz", dir);
	CHECK(mt_kimg_check(gz, err, sizeof err) == 0);
	k = mt_kimg_open(gz, err, sizeof err);
	plain = mt_kimg_open(mt_stock_kernel(kpath, sizeof kpath), err, sizeof err);
	CHECK(k && plain);
	CHECK(mt_kimg_nfuncs(k) == mt_kimg_nfuncs(plain) && mt_kimg_nfuncs(k) > 1800);
	mt_kimg_close(k);
	mt_kimg_close(plain);
}

TEST(kzip_plain_path_passes_through)
{
	char out[PATH_MAX], err[512];

	CHECK(mt_kernel_elf("/bin/sh", out, sizeof out, err, sizeof err) == 0);
	CHECK(strcmp(out, "/bin/sh") == 0);
}

TEST(kzip_truncated_gzip_is_an_error)
{
	char gz[PATH_MAX], err[512];

	CHECK(setup());
	snprintf(gz, sizeof gz, "%s/cut.gz", dir);
	CHECK(mt_kimg_check(gz, err, sizeof err) < 0);
	CHECK(strstr(err, "cut.gz: bad gzip data") != NULL);
}

TEST(kzip_inflation_is_bounded)
{
	char gz[PATH_MAX], cmd[2 * PATH_MAX], out[PATH_MAX], err[512];

	CHECK(setup());
	snprintf(gz, sizeof gz, "%s/bomb.gz", dir);
	snprintf(cmd, sizeof cmd, "head -c 300M /dev/zero | gzip -1 > %s", gz);
	CHECK(system(cmd) == 0);
	CHECK(mt_kernel_elf(gz, out, sizeof out, err, sizeof err) < 0);
	CHECK(strstr(err, "bomb.gz: gunzipped, larger than 268435456 bytes") != NULL);
	CHECK(access(out, F_OK) != 0);
}

TEST(kzip_cleanup)
{
	char cmd[PATH_MAX + 16];

	CHECK(setup());
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

MT_TEST_MAIN()
