/*
 * Private state, made as ssh-agent and systemd make theirs.  Below its
 * base ($XDG_RUNTIME_DIR, else /tmp) every directory of the state root
 * ($XDG_RUNTIME_DIR/machtrace/vm, else /tmp/machtrace-UID/vm) and a VM's
 * directory is created 0700; one that exists must be a directory (not a
 * symlink) owned by us with no access for anyone else, else it is refused,
 * saying what is wrong.  Nobody else can then create, replace or rename a
 * file inside, so what the files there say (qemu.pid, info) is ours.
 *
 * The start lock ROOT/.NAME.lock (no VM name starts with '.') orders a
 * VM's start, stop and removal of its stale state against each other and
 * against commands that look at it: start and stop hold it exclusively
 * for their whole run, a look holds it shared and upgrades to exclusive
 * only to remove a dead VM's state.  Whoever holds it exclusively at the
 * end removes the file; a taker checks after flock() that the path still
 * names the file it locked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "machtrace/vm.h"
#include "targets/mach/mach_int.h"
#include "targets/mach/vm/vm_int.h"

int vm_root(char *buf, size_t len, size_t *base)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	int n;

	if (x && *x == '/') {
		n = snprintf(buf, len, "%s/machtrace/vm", x);
		*base = strlen(x);
	} else {
		n = snprintf(buf, len, "/tmp/machtrace-%u/vm", (unsigned)getuid());
		*base = 4;
	}
	while (*base > 1 && buf[*base - 1] == '/')
		(*base)--;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* 0: path is a private directory of ours (made if create); 1: absent. */
static int private_dir(const char *path, int create, char *err, size_t errlen)
{
	struct stat st;
	const char *why = NULL;
	char buf[64];
	int e = 0;

	if (create && mkdir(path, 0700) == 0)
		return 0;
	if (create && errno != EEXIST)
		e = errno;
	if (e || lstat(path, &st) < 0) {
		if (!e && errno == ENOENT && !create)
			return 1;
		mt_seterr(err, errlen, "cannot create %s: %s", path, strerror(e ? e : errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode))
		why = "is a symbolic link";
	else if (!S_ISDIR(st.st_mode))
		why = "is not a directory";
	else if (st.st_uid != getuid())
		why = buf, snprintf(buf, sizeof buf, "is owned by uid %u, not by you (uid %u)",
				    (unsigned)st.st_uid, (unsigned)getuid());
	else if (st.st_mode & 077)
		why = buf, snprintf(buf, sizeof buf, "has mode %04o, not 0700",
				    (unsigned)(st.st_mode & 07777));
	if (!why)
		return 0;
	mt_seterr(err, errlen, "%s %s: not machtrace's private state; refusing it (remove "
		  "it, or set XDG_RUNTIME_DIR)", path, why);
	return -1;
}

int vm_private_tree(const char *path, int create, char *err, size_t errlen)
{
	char root[PATH_MAX], p[PATH_MAX];
	size_t base;
	int r = 0;

	if (vm_root(root, sizeof root, &base) < 0 || strncmp(path, root, base) != 0 ||
	    snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
		mt_seterr(err, errlen, "%s: path too long", path);
		return -1;
	}
	for (char *s = p + base + 1; r == 0 && *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		r = private_dir(p, create, err, errlen);
		*s = '/';
	}
	return r == 0 ? private_dir(p, create, err, errlen) : r;
}

static int lock_path(const struct mt_vm *vm, char *buf, size_t len)
{
	const char *slash = strrchr(vm->dir, '/');
	int n;

	if (!slash)
		return -1;
	n = snprintf(buf, len, "%.*s/.%s.lock", (int)(slash - vm->dir), vm->dir, vm->name);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int vm_lock(const struct mt_vm *vm, int how, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat a, b;
	int fd;

	if (lock_path(vm, path, sizeof path) < 0) {
		mt_seterr(err, errlen, "vm %s: path too long", vm->name);
		return -1;
	}
	for (;;) {
		fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			mt_seterr(err, errlen, "vm %s: %s: %s", vm->name, path, strerror(errno));
			return -1;
		}
		if (flock(fd, how == VM_LOOK ? LOCK_SH | LOCK_NB : LOCK_EX) < 0) {
			close(fd);
			mt_seterr(err, errlen, "vm %s is starting or stopping (try again)",
				  vm->name);
			return -2;
		}
		if (fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return fd;
		close(fd);	/* removed by its holder meanwhile */
	}
}

void vm_unlock(const struct mt_vm *vm, int fd)
{
	char path[PATH_MAX];

	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && lock_path(vm, path, sizeof path) == 0)
		unlink(path);
	close(fd);
}

/* Is path (not followed) a file (or directory) of ours? */
int vm_owned(const char *path, int dir)
{
	struct stat st;

	return lstat(path, &st) == 0 && st.st_uid == getuid() &&
	       (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

/* The VM's RAM file, created afresh with a name nobody can guess. */
int vm_make_ram(struct mt_vm *vm, unsigned mem_mb, char *err, size_t errlen)
{
	char tmpl[PATH_MAX];
	int fd;

	if (mt_vm_shm(vm->name, tmpl, sizeof tmpl - 8) < 0)
		return -1;
	strcat(tmpl, ".XXXXXX");
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		mt_seterr(err, errlen, "guest RAM %s: %s", tmpl, strerror(errno));
		return -1;
	}
	snprintf(vm->shm, sizeof vm->shm, "%s", tmpl);
	if (ftruncate(fd, (off_t)mem_mb << 20) < 0) {
		mt_seterr(err, errlen, "guest RAM %s: %s", vm->shm, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Open the VM's RAM file: a regular file of ours, not through a link. */
int vm_open_ram(const struct mt_vm *vm, size_t size, char *err, size_t errlen)
{
	int fd = open(vm->shm, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	struct stat st = { 0 };

	if (fd < 0) {
		mt_seterr(err, errlen, "vm %s: guest RAM %s: %s", vm->name, vm->shm,
			  strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() ||
	    (size_t)st.st_size < size) {
		mt_seterr(err, errlen, "vm %s: guest RAM %s is not a file of yours of %zu MiB "
			  "(owner uid %u): refusing it", vm->name, vm->shm, size >> 20,
			  (unsigned)st.st_uid);
		close(fd);
		return -1;
	}
	return fd;
}
