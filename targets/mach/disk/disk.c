/*
 * mt_disk_plan(): from a raw disk image to the kernel and modules its
 * grub.cfg boots (see <machtrace/disk.h>).
 *
 * The file systems tried, in order: the whole disk, then the partitions of
 * an MBR (the four primary entries; extended partitions are not followed)
 * or of a GPT (a protective MBR of type 0xEE, 512-byte sectors).  The
 * first ext2/3/4 file system holding /boot/grub/grub.cfg is the one GRUB's
 * entries are read from; libext2fs opens it read-only at its offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "machtrace/disk.h"
#include "targets/mach/mach_int.h"

#define MAX_PARTS	129             /* the whole disk + 128 GPT entries */
#define GRUB_CFG	"/boot/grub/grub.cfg"
#define CFG_MAX		(1u << 20)
/* A kernel or module, as stored and as gunzipped: half the guest RAM of a
   default session; a gzip bomb stops here instead of filling the disk. */
#define FILE_MAX	((uint64_t)256 << 20)

struct part {
	uint64_t offset;
	int number;                     /* 0: whole disk */
};

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* GPT partitions (512-byte sectors) after a protective MBR. */
static int gpt_parts(int fd, struct part *parts, int n)
{
	unsigned char hdr[512], ent[512];
	uint64_t lba;
	uint32_t count, size;

	if (read_at(fd, hdr, sizeof hdr, 512) < 0 || memcmp(hdr, "EFI PART", 8) != 0)
		return n;
	lba = le64(hdr + 72);
	count = le32(hdr + 80);
	size = le32(hdr + 84);
	if (size < 128 || size > sizeof ent || count > MAX_PARTS - 1)
		return n;
	for (uint32_t i = 0; i < count && n < MAX_PARTS; i++) {
		static const unsigned char zero[16];
		if (read_at(fd, ent, size, lba * 512 + (uint64_t)i * size) < 0)
			break;
		if (memcmp(ent, zero, 16) == 0)
			continue;
		parts[n].offset = le64(ent + 32) * 512;
		parts[n++].number = (int)i + 1;
	}
	return n;
}

/* The offsets to try: the whole disk, then its MBR or GPT partitions. */
static int list_parts(int fd, struct part *parts)
{
	unsigned char mbr[512];
	int n = 0;

	parts[n].offset = 0;
	parts[n++].number = 0;
	if (read_at(fd, mbr, sizeof mbr, 0) < 0 || mbr[510] != 0x55 || mbr[511] != 0xaa)
		return n;
	for (int i = 0; i < 4; i++) {
		const unsigned char *e = mbr + 446 + 16 * i;
		unsigned type = e[4];

		if (type == 0xee)
			return gpt_parts(fd, parts, n);
		if (type == 0 || type == 0x05 || type == 0x0f || type == 0x85 || le32(e + 8) == 0)
			continue;
		parts[n].offset = (uint64_t)le32(e + 8) * 512;
		parts[n++].number = i + 1;
	}
	return n;
}

static int open_fs(const char *image, uint64_t offset, ext2_filsys *fs)
{
	char opts[64];

	snprintf(opts, sizeof opts, "offset=%llu", (unsigned long long)offset);
	return ext2fs_open2(image, opts, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, fs) ? -1 : 0;
}

static int lookup(ext2_filsys fs, const char *path, ext2_ino_t *ino)
{
	struct ext2_inode inode;

	if (ext2fs_namei_follow(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, ino) != 0)
		return -1;
	if (ext2fs_read_inode(fs, *ino, &inode) != 0 || !LINUX_S_ISREG(inode.i_mode))
		return -1;
	return 0;
}

/* Reads a whole file of fs (at most max bytes) into a malloc'd buffer. */
static int read_file(ext2_filsys fs, ext2_ino_t ino, uint64_t max, char **data,
		     size_t *len, char *err, size_t errlen, const char *path)
{
	ext2_file_t f;
	__u64 size;
	unsigned int got;
	size_t done = 0;
	errcode_t e;

	if ((e = ext2fs_file_open(fs, ino, 0, &f)) != 0) {
		mt_seterr(err, errlen, "%s: %s", path, error_message(e));
		return -1;
	}
	if ((e = ext2fs_file_get_lsize(f, &size)) != 0 || size > max) {
		ext2fs_file_close(f);
		if (e)
			mt_seterr(err, errlen, "%s: %s", path, error_message(e));
		else
			mt_seterr(err, errlen, "%s: larger than %llu bytes", path,
				  (unsigned long long)max);
		return -1;
	}
	*data = malloc((size_t)size + 1);
	if (!*data) {
		ext2fs_file_close(f);
		mt_seterr(err, errlen, "%s: out of memory", path);
		return -1;
	}
	while (done < size) {
		unsigned want = size - done > (1u << 20) ? 1u << 20 : (unsigned)(size - done);
		if ((e = ext2fs_file_read(f, *data + done, want, &got)) != 0 || got == 0) {
			mt_seterr(err, errlen, "%s: read: %s", path, e ? error_message(e) : "short file");
			ext2fs_file_close(f);
			free(*data);
			*data = NULL;
			return -1;
		}
		done += got;
	}
	ext2fs_file_close(f);
	(*data)[done] = 0;
	*len = done;
	return 0;
}

/* Copies the image's file `path` to `dest`, gunzipped unless nounzip. */
static int extract(ext2_filsys fs, const char *path, const char *dest, int unzip,
		   const char *image, char *err, size_t errlen)
{
	ext2_ino_t ino;
	char *data;
	size_t len;
	int fd, r;

	if (lookup(fs, path, &ino) < 0) {
		mt_seterr(err, errlen, "%s: grub.cfg names %s, which is not a file in its "
			  "file system", image, path);
		return -1;
	}
	if (read_file(fs, ino, FILE_MAX, &data, &len, err, errlen, path) < 0)
		return -1;
	fd = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		mt_seterr(err, errlen, "%s: %s", dest, strerror(errno));
		free(data);
		return -1;
	}
	r = mt_write_unzipped(fd, (unsigned char *)data, len, unzip, FILE_MAX, path,
			      err, errlen);
	if (close(fd) < 0 && r == 0) {
		mt_seterr(err, errlen, "%s: %s", dest, strerror(errno));
		r = -1;
	}
	free(data);
	return r;
}

/*
 * The name a module is stored under: the first word of its GRUB command
 * line (the shim passes the basename of our path as that word), else the
 * basename of its file.
 */
static void module_name(const struct mt_grub_boot *g, int i, char *name, size_t len)
{
	const char *args = g->modules[i].args, *base;
	size_t n = strcspn(args, " ");

	if (n > 0 && memchr(args, '/', n) == NULL && !(n == 1 && args[0] == '.') &&
	    !(n == 2 && strncmp(args, "..", 2) == 0) && n < len) {
		memcpy(name, args, n);
		name[n] = 0;
		return;
	}
	base = strrchr(g->modules[i].path, '/');
	snprintf(name, len, "%s", base ? base + 1 : g->modules[i].path);
}

static int plan_files(ext2_filsys fs, const struct mt_grub_boot *g, struct mt_disk_plan *p,
		      char *err, size_t errlen)
{
	snprintf(p->kernel, sizeof p->kernel, "%s/kernel", p->dir);
	if (extract(fs, g->kernel, p->kernel, 1, p->image, err, errlen) < 0)
		return -1;
	snprintf(p->kernel_args, sizeof p->kernel_args, "%s", g->kernel_args);
	for (int i = 0; i < g->nmodules; i++) {
		char sub[PATH_MAX], name[256], file[PATH_MAX + 256];
		const char *args = g->modules[i].args;
		size_t first = strcspn(args, " ");

		snprintf(sub, sizeof sub, "%s/m%d", p->dir, i);
		if (mkdir(sub, 0700) < 0) {
			mt_seterr(err, errlen, "%s: %s", sub, strerror(errno));
			return -1;
		}
		module_name(g, i, name, sizeof name);
		snprintf(file, sizeof file, "%s/%s", sub, name);
		if (extract(fs, g->modules[i].path, file, !g->modules[i].nounzip, p->image,
			    err, errlen) < 0)
			return -1;
		/* the first word is the file's name now, unless it was not usable */
		if (strncmp(args, name, first) != 0 || strlen(name) != first)
			first = 0;
		snprintf(p->modules[i], sizeof p->modules[i], "%s%s", file, args + first);
		p->nmodules++;
	}
	return 0;
}

static int is_qcow2(int fd)
{
	unsigned char m[4];

	return read_at(fd, m, 4, 0) == 0 && memcmp(m, "QFI\xfb", 4) == 0;
}

/* Finds the file system with grub.cfg; returns it open, or NULL + err. */
static ext2_filsys find_fs(struct mt_disk_plan *p, char *err, size_t errlen)
{
	struct part parts[MAX_PARTS];
	int fd = open(p->image, O_RDONLY | O_CLOEXEC), n, nfs = 0;
	struct stat sb;

	if (fd < 0 || fstat(fd, &sb) < 0) {
		mt_seterr(err, errlen, "disk image %s: %s", p->image, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(sb.st_mode) && !S_ISBLK(sb.st_mode)) {
		mt_seterr(err, errlen, "disk image %s: not a file", p->image);
		close(fd);
		return NULL;
	}
	if (is_qcow2(fd)) {
		mt_seterr(err, errlen, "disk image %s is qcow2: machtrace reads raw images only "
			  "(convert it: qemu-img convert -O raw %s IMAGE.raw)", p->image, p->image);
		close(fd);
		return NULL;
	}
	n = list_parts(fd, parts);
	close(fd);
	for (int i = 0; i < n; i++) {
		ext2_filsys fs;
		ext2_ino_t ino;

		if (open_fs(p->image, parts[i].offset, &fs) < 0)
			continue;
		nfs++;
		if (lookup(fs, GRUB_CFG, &ino) == 0) {
			p->fs_offset = parts[i].offset;
			p->partition = parts[i].number;
			return fs;
		}
		ext2fs_close_free(&fs);
	}
	if (nfs == 0 && n == 1)
		mt_seterr(err, errlen, "disk image %s: no ext2/3/4 file system on the whole disk "
			  "and no MBR or GPT partition table (is it a raw disk image?)", p->image);
	else if (nfs == 0)
		mt_seterr(err, errlen, "disk image %s: no ext2/3/4 file system on the whole disk "
			  "or in its %d partition(s)", p->image, n - 1);
	else
		mt_seterr(err, errlen, "disk image %s: none of its %d ext2/3/4 file system(s) "
			  "holds %s", p->image, nfs, GRUB_CFG);
	return NULL;
}

/* A console on the serial line, which is where machtrace reads the guest. */
static void serial_console(struct mt_disk_plan *p)
{
	const char *a = p->kernel_args;

	for (const char *s = a; (s = strstr(s, "console=")); s++)
		if (s == a || s[-1] == ' ')
			return;
	size_t n = strlen(a);
	snprintf(p->kernel_args + n, sizeof p->kernel_args - n, "%sconsole=com0", n ? " " : "");
}

int mt_disk_plan(const char *image, struct mt_disk_plan *p, char *err, size_t errlen)
{
	struct mt_grub_boot *g = NULL;
	ext2_filsys fs;
	ext2_ino_t ino;
	const char *tmp = getenv("TMPDIR");
	char *cfg = NULL;
	size_t len;
	int r = -1;

	memset(p, 0, sizeof *p);
	if (!realpath(image, p->image)) {
		mt_seterr(err, errlen, "disk image %s: %s", image, strerror(errno));
		return -1;
	}
	add_error_table(&et_ext2_error_table);
	if (!(fs = find_fs(p, err, errlen)))
		return -1;
	if (!(g = malloc(sizeof *g))) {
		mt_seterr(err, errlen, "out of memory");
		goto out;
	}
	if (lookup(fs, GRUB_CFG, &ino) < 0 ||
	    read_file(fs, ino, CFG_MAX, &cfg, &len, err, errlen, GRUB_CFG) < 0)
		goto out;
	if (strlen(cfg) != len) {
		mt_seterr(err, errlen, "%s: %s holds a NUL byte", image, GRUB_CFG);
		goto out;
	}
	if (mt_grub_parse(cfg, g, err, errlen) < 0)
		goto out;
	snprintf(p->title, sizeof p->title, "%s", g->title);
	snprintf(p->dir, sizeof p->dir, "%s/machtrace-disk-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(p->dir)) {
		mt_seterr(err, errlen, "%s: %s", p->dir, strerror(errno));
		p->dir[0] = 0;
		goto out;
	}
	if (plan_files(fs, g, p, err, errlen) < 0)
		goto out;
	serial_console(p);
	r = 0;
out:
	free(cfg);
	free(g);
	ext2fs_close_free(&fs);
	if (r < 0)
		mt_disk_plan_free(p);
	return r;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

void mt_disk_plan_free(struct mt_disk_plan *p)
{
	if (p->dir[0])
		nftw(p->dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
	p->dir[0] = 0;
}

void mt_disk_boot_opts(const struct mt_disk_plan *p, struct mt_boot_opts *o)
{
	o->kernel = p->kernel;
	o->kernel_args = p->kernel_args;
	o->nmodules = p->nmodules;
	for (int i = 0; i < p->nmodules; i++)
		o->modules[i] = p->modules[i];
	o->disk = p->image;
}
