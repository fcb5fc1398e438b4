/*
 * Gzip'd kernels and modules.  Debian installs GNU Mach as
 * boot/gnumach-*.gz and GRUB inflates it; machtrace does the same.
 *
 * A --kernel path naming a gzip file stands for its ELF, inflated once
 * into the user's cache ($XDG_CACHE_HOME, else ~/.cache, /machtrace/
 * gunzipped/BASE-DEV-INO-SIZE-MTIME: the .gz's identity, so a replaced
 * file is inflated again).  It is written to a temporary file and renamed,
 * so that concurrent users see a whole file or none; every later use (the
 * image reader, QEMU, a vm's sessions) finds it by stat alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "machtrace/kimg.h"
#include "targets/mach/mach_int.h"

#define KZIP_MAX_IN	(64u << 20)	/* a .gz kernel: Debian's are ~2 MiB */
#define KZIP_MAX_OUT	(256u << 20)	/* its ELF: Debian's dbg is ~4 MiB */

int mt_write_unzipped(int fd, const unsigned char *data, size_t len, int unzip,
		      uint64_t max_out, const char *path, char *err, size_t errlen)
{
	unsigned char out[65536];
	uint64_t total = 0;
	z_stream z;
	int r = Z_OK;

	if (!unzip || !mt_is_gzip(data, len)) {
		if (unzip && len >= 6 && memcmp(data, "\xfd" "7zXZ", 6) == 0) {
			mt_seterr(err, errlen, "%s is xz-compressed: only gzip is supported "
				  "(unxz it first)", path);
			return -1;
		}
		if (mt_write_all(fd, data, len) < 0)
			goto wfail;
		return 0;
	}
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		mt_seterr(err, errlen, "%s: zlib: %s", path, z.msg ? z.msg : "init failed");
		return -1;
	}
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)len;
	while (z.avail_in > 0) {
		z.next_out = out;
		z.avail_out = sizeof out;
		r = inflate(&z, Z_NO_FLUSH);
		if (r != Z_OK && r != Z_STREAM_END)
			break;
		total += sizeof out - z.avail_out;
		if (total > max_out) {
			inflateEnd(&z);
			mt_seterr(err, errlen, "%s: gunzipped, larger than %llu bytes", path,
				  (unsigned long long)max_out);
			return -1;
		}
		if (mt_write_all(fd, out, sizeof out - z.avail_out) < 0) {
			inflateEnd(&z);
			goto wfail;
		}
		if (r == Z_STREAM_END && z.avail_in > 0 && inflateReset(&z) != Z_OK)
			break;
		if (r == Z_OK && z.avail_in == 0 && z.avail_out != 0)
			break;
	}
	inflateEnd(&z);
	if (r != Z_STREAM_END) {
		mt_seterr(err, errlen, "%s: bad gzip data%s%s", path, z.msg ? ": " : "",
			  z.msg ? z.msg : " (truncated)");
		return -1;
	}
	return 0;
wfail:
	mt_seterr(err, errlen, "writing %s: %s", path, strerror(errno));
	return -1;
}

int mt_is_gzip(const void *data, size_t len)
{
	const unsigned char *d = data;

	return len >= 2 && d[0] == 0x1f && d[1] == 0x8b;
}

/* $XDG_CACHE_HOME/machtrace/gunzipped, else ~/.cache/machtrace/gunzipped. */
static int cache_dir(char *buf, size_t len, char *err, size_t errlen)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	int n;

	if (x && *x == '/')
		n = snprintf(buf, len, "%s/machtrace/gunzipped", x);
	else if (h && *h == '/')
		n = snprintf(buf, len, "%s/.cache/machtrace/gunzipped", h);
	else {
		mt_seterr(err, errlen, "no $XDG_CACHE_HOME or $HOME to inflate a gzip'd kernel in");
		return -1;
	}
	if (n < 0 || (size_t)n >= len || mt_mkdirs(buf) < 0) {
		mt_seterr(err, errlen, "cache directory %s: %s", buf,
			  n < 0 || (size_t)n >= len ? "name too long" : strerror(errno));
		return -1;
	}
	return 0;
}

/* Reads all of fd (at most max bytes) into a malloc'd buffer. */
static unsigned char *read_all(int fd, size_t max, size_t *len)
{
	unsigned char *d = NULL;
	size_t cap = 0, n = 0;
	ssize_t r;

	do {
		if (n == cap) {
			unsigned char *nd;
			cap = cap ? 2 * cap : 1u << 20;
			if (cap > max + 1)
				cap = max + 1;
			if (n == cap || !(nd = realloc(d, cap))) {
				free(d);
				return NULL;
			}
			d = nd;
		}
		r = read(fd, d + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(d);
			return NULL;
		}
		n += (size_t)r;
	} while (r > 0);
	*len = n;
	return d;
}

/* Inflates the open .gz fd of `path` into `dest` (temporary, renamed). */
static int inflate_to(int fd, const char *path, const char *dest, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	unsigned char *data;
	size_t len = 0;
	int out, rc;

	data = read_all(fd, KZIP_MAX_IN, &len);
	if (!data || len > KZIP_MAX_IN) {
		mt_seterr(err, errlen, "%s: %s", path, data ? "larger than 64 MiB" :
			  "cannot read it (or larger than 64 MiB)");
		free(data);
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", dest);
	out = mkstemp(tmp);
	if (out < 0) {
		mt_seterr(err, errlen, "%s: %s", tmp, strerror(errno));
		free(data);
		return -1;
	}
	rc = mt_write_unzipped(out, data, len, 1, KZIP_MAX_OUT, path, err, errlen);
	free(data);
	if (close(out) < 0 && rc == 0) {
		mt_seterr(err, errlen, "%s: %s", tmp, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && rename(tmp, dest) < 0) {
		mt_seterr(err, errlen, "%s: %s", dest, strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		unlink(tmp);
	return rc;
}

int mt_kernel_elf(const char *path, char *out, size_t outlen, char *err, size_t errlen)
{
	char dir[PATH_MAX / 2];
	unsigned char magic[2];
	const char *base;
	struct stat st, cst;
	int fd, n, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || pread(fd, magic, 2, 0) != 2 ||
	    !mt_is_gzip(magic, 2)) {
		if (fd >= 0)
			close(fd);
		n = snprintf(out, outlen, "%s", path);
		return n >= 0 && (size_t)n < outlen ? 0 : -1;
	}
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (cache_dir(dir, sizeof dir, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	n = snprintf(out, outlen, "%s/%.64s-%llx-%llx-%llx-%llx", dir, base,
		     (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
		     (unsigned long long)st.st_size, (unsigned long long)st.st_mtime);
	if (n < 0 || (size_t)n >= outlen) {
		close(fd);
		mt_seterr(err, errlen, "%s: cache path too long", path);
		return -1;
	}
	if (stat(out, &cst) < 0 || !S_ISREG(cst.st_mode))
		rc = inflate_to(fd, path, out, err, errlen);
	close(fd);
	return rc;
}
