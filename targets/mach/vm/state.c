/*
 * A persistent VM's state directory (include/machtrace/vm.h): paths,
 * finding a running VM by name, the list of names, the session lock.
 * A VM is running while its QEMU pid is alive and is that VM's QEMU
 * (its command line names our RAM file); anything else is stale state,
 * removed by whoever finds it.
 */
#include <ctype.h>
#include <dirent.h>
#include <ftw.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "machtrace/hmap.h"
#include "machtrace/vm.h"
#include "targets/mach/mach_int.h"
#include "targets/mach/vm/vm_int.h"

int mt_vm_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > MT_VM_NAME_MAX || name[0] == '.' || name[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("_.-", name[i]))
			return 0;
	return 1;
}

int mt_vm_dir(const char *name, char *buf, size_t len)
{
	char root[PATH_MAX - 128];
	size_t base;
	int n;

	if (vm_root(root, sizeof root, &base) < 0)
		return -1;
	n = snprintf(buf, len, "%s/%s", root, name);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int mt_vm_path(const struct mt_vm *vm, const char *file, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", vm->dir, file);

	return n > 0 && (size_t)n < len ? 0 : -1;
}

int mt_vm_shm(const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "/dev/shm/machtrace-vm-%u-%s", (unsigned)getuid(), name);

	return n > 0 && (size_t)n < len ? 0 : -1;
}

pid_t vm_read_pid(const char *path)
{
	FILE *f = fopen(path, "r");
	long pid = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return pid > 0 ? (pid_t)pid : 0;
}

/* Is pid alive, ours and a QEMU whose command line names shm? */
int vm_qemu_alive(pid_t pid, const char *shm)
{
	char path[64], cmd[16384];
	struct stat st;
	ssize_t n;
	int fd;

	if (pid <= 0 || !shm[0] || (kill(pid, 0) < 0 && errno == ESRCH))
		return 0;
	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	if (stat(path, &st) < 0 || st.st_uid != getuid())
		return 0;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, cmd, sizeof cmd - 1);
	close(fd);
	if (n <= 0)
		return 0;
	for (ssize_t i = 0; i < n; i++)
		if (cmd[i] == 0)
			cmd[i] = ' ';
	cmd[n] = 0;
	return strstr(cmd, shm) != NULL;
}

static void info_line(struct mt_vm *vm, char *line)
{
	char *v = strchr(line, '=');

	if (!v)
		return;
	*v++ = 0;
	v[strcspn(v, "\n")] = 0;
	if (strcmp(line, "kernel") == 0)
		snprintf(vm->kernel, sizeof vm->kernel, "%s", v);
	else if (strcmp(line, "module") == 0)
		snprintf(vm->modules + strlen(vm->modules),
			 sizeof vm->modules - strlen(vm->modules), "%s%s",
			 vm->modules[0] ? "\n" : "", v);
	else if (strcmp(line, "memory") == 0)
		vm->mem_mb = (unsigned)strtoul(v, NULL, 10);
	else if (strcmp(line, "cpus") == 0)
		vm->cpus = (unsigned)strtoul(v, NULL, 10);
	else if (strcmp(line, "resv_pa") == 0)
		vm->resv_pa = strtoull(v, NULL, 0);
	else if (strcmp(line, "resv_size") == 0)
		vm->resv_size = strtoull(v, NULL, 0);
	else if (strcmp(line, "blob_id") == 0)
		snprintf(vm->blob_id, sizeof vm->blob_id, "%s", v);
	else if (strcmp(line, "started") == 0)
		vm->started = strtod(v, NULL);
	else if (strcmp(line, "disk_dir") == 0)
		snprintf(vm->disk_dir, sizeof vm->disk_dir, "%s", v);
	else if (strcmp(line, "shm") == 0 && strncmp(v, vm->shm, strlen(vm->shm)) == 0 &&
		 v[strlen(vm->shm)] == '.' && !strchr(v + strlen(vm->shm), '/'))
		snprintf(vm->shm, sizeof vm->shm, "%s", v);
}

static int vm_read_info(struct mt_vm *vm)
{
	char path[PATH_MAX], line[9000];
	FILE *f;

	if (mt_vm_path(vm, "info", path, sizeof path) < 0 || !(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof line, f))
		info_line(vm, line);
	fclose(f);
	return vm->mem_mb && vm->resv_size ? 0 : -1;
}

/* The VM's name, directory and its RAM file's prefix, without looking. */
int vm_init(struct mt_vm *vm, const char *name, char *err, size_t errlen)
{
	memset(vm, 0, sizeof *vm);
	if (!mt_vm_name_ok(name)) {
		mt_seterr(err, errlen, "invalid VM name '%s' (letters, digits, '_', '.', '-'; "
			  "at most %d)", name ? name : "", MT_VM_NAME_MAX);
		return -1;
	}
	snprintf(vm->name, sizeof vm->name, "%s", name);
	if (mt_vm_dir(name, vm->dir, sizeof vm->dir) < 0 ||
	    mt_vm_shm(name, vm->shm, sizeof vm->shm) < 0) {
		mt_seterr(err, errlen, "vm %s: path too long", name);
		return -1;
	}
	return 0;
}

/*
 * With the start lock held: 0 if the VM runs (*vm filled from its state
 * directory), 1 with err if not, its state removed when its QEMU is gone
 * (or its start died before it wrote info) and the lock could be made
 * exclusive (nobody else looks at it); -1 with err if its directory is
 * not private.
 */
static int vm_examine(struct mt_vm *vm, int lk, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int r = vm_private_tree(vm->dir, 0, err, errlen);

	if (r != 0) {
		if (r > 0)
			mt_seterr(err, errlen, "no VM named %s (machtrace vm list)", vm->name);
		return r;
	}
	r = vm_read_info(vm);
	mt_vm_path(vm, "qemu.pid", path, sizeof path);
	vm->qemu_pid = vm_read_pid(path);
	if (r < 0 || !vm_qemu_alive(vm->qemu_pid, vm->shm)) {
		if (flock(lk, LOCK_EX | LOCK_NB) == 0)
			vm_remove_state(vm);
		mt_seterr(err, errlen, "no VM named %s: its QEMU is gone (state removed)",
			  vm->name);
		return 1;
	}
	return 0;
}

int vm_take(const char *name, struct mt_vm *vm, int how, int *lk, char *err, size_t errlen)
{
	char root[PATH_MAX];
	size_t base;
	int r;

	*lk = -1;
	if (vm_init(vm, name, err, errlen) < 0 || vm_root(root, sizeof root, &base) < 0)
		return -1;
	if ((r = vm_private_tree(root, how == VM_START, err, errlen)) != 0) {
		if (r > 0)
			mt_seterr(err, errlen, "no VM named %s (machtrace vm list)", name);
		return r;
	}
	if ((r = vm_lock(vm, how, err, errlen)) < 0)
		return r;
	*lk = r;
	return vm_examine(vm, *lk, err, errlen);
}

int mt_vm_find(const char *name, struct mt_vm *vm, char *err, size_t errlen)
{
	int lk, r = vm_take(name, vm, VM_LOOK, &lk, err, errlen);

	vm_unlock(vm, lk);
	return r == 1 ? -1 : r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **mt_vm_names(int *n, char *err, size_t errlen)
{
	char root[PATH_MAX], **v = NULL;
	struct dirent *e;
	size_t base;
	int r;
	DIR *d;

	*n = 0;
	if (vm_root(root, sizeof root, &base) < 0)
		return NULL;
	if ((r = vm_private_tree(root, 0, err, errlen)) != 0 || !(d = opendir(root))) {
		*n = r < 0 ? -1 : 0;
		return NULL;
	}
	while ((e = readdir(d))) {
		char **nv;
		if (!mt_vm_name_ok(e->d_name) || !(nv = realloc(v, (*n + 1) * sizeof *v)))
			continue;
		v = nv;
		if ((v[*n] = strdup(e->d_name)))
			(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, cmp_str);
	return v;
}

void mt_vm_names_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* FNV-1a 64 of the file's bytes, with its size. */
int mt_vm_file_id(const char *path, char *buf, size_t len)
{
	uint64_t h = MT_HASH_INIT, size = 0;
	unsigned char chunk[65536];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f)
		return -1;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		h = mt_hash_bytes(chunk, n, h);
		size += n;
	}
	fclose(f);
	snprintf(buf, len, "%016llx-%llu", (unsigned long long)h, (unsigned long long)size);
	return 0;
}

pid_t mt_vm_session_pid(const struct mt_vm *vm)
{
	char path[PATH_MAX];
	pid_t pid;
	int fd;

	if (mt_vm_path(vm, "session.lock", path, sizeof path) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {	/* nobody holds it */
		close(fd);
		return 0;
	}
	close(fd);
	mt_vm_path(vm, "session.pid", path, sizeof path);
	pid = vm_read_pid(path);
	return pid ? pid : -1;
}

int mt_vm_lock(const struct mt_vm *vm, int *fd, char *err, size_t errlen)
{
	char path[PATH_MAX];
	FILE *f;

	*fd = -1;
	mt_vm_path(vm, "session.lock", path, sizeof path);
	*fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (*fd < 0) {
		mt_seterr(err, errlen, "vm %s: %s: %s", vm->name, path, strerror(errno));
		return -1;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		pid_t p;
		close(*fd);
		*fd = -1;
		mt_vm_path(vm, "session.pid", path, sizeof path);
		p = vm_read_pid(path);
		mt_seterr(err, errlen, "vm %s: a session (pid %d) is attached; one session "
			  "at a time", vm->name, (int)p);
		return -1;
	}
	mt_vm_path(vm, "session.pid", path, sizeof path);
	if ((f = fopen(path, "we"))) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	return 0;
}

void mt_vm_unlock(const struct mt_vm *vm, int fd)
{
	char path[PATH_MAX];

	if (fd < 0)
		return;
	mt_vm_path(vm, "session.pid", path, sizeof path);
	unlink(path);
	close(fd);
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

/* The directory --disk took the kernel and modules into: a real directory
   of ours named so, not reached through a link or "..". */
static int disk_dir_ours(const char *dir)
{
	char real[PATH_MAX];
	const char *b = strrchr(dir, '/');

	return b && strncmp(b, "/machtrace-disk-", 16) == 0 && realpath(dir, real) &&
	       strcmp(real, dir) == 0 && vm_owned(dir, 1);
}

/*
 * A failed start's console log (its reason), moved out of the state
 * directory, which goes, to the VM root's parent (private, as the root) as
 * vm-NAME.console.log.  Its path in out; "" when there was none (or
 * an empty one).
 */
void vm_keep_console(const struct mt_vm *vm, char *out, size_t len)
{
	char root[PATH_MAX - 128], from[PATH_MAX], *slash;
	struct stat st;
	size_t base;
	int n;

	out[0] = 0;
	if (vm_root(root, sizeof root, &base) < 0 || !(slash = strrchr(root, '/')) ||
	    mt_vm_path(vm, "console.log", from, sizeof from) < 0 ||
	    lstat(from, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return;
	*slash = 0;
	n = snprintf(out, len, "%s/vm-%s.console.log", root, vm->name);
	if (n < 0 || (size_t)n >= len || rename(from, out) < 0)
		out[0] = 0;
}

/* Every file of the state directory, the directory, the RAM file, the
   files --disk took out of its image: what the VM's start made. */
void vm_remove_state(const struct mt_vm *vm)
{
	static const char *const files[] = {
		"info", "qemu.pid", "qmp.sock", "gdb.sock", "console.sock", "console.log",
		"session.lock", "session.pid", "qemu.err", "info.tmp",
	};
	char path[PATH_MAX], prefix[PATH_MAX];

	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		if (mt_vm_path(vm, files[i], path, sizeof path) == 0)
			unlink(path);
	rmdir(vm->dir);
	/* NAME.XXXXXX, or NAME alone from a VM an older build started */
	if (mt_vm_shm(vm->name, prefix, sizeof prefix) == 0 &&
	    strncmp(vm->shm, prefix, strlen(prefix)) == 0 &&
	    (vm->shm[strlen(prefix)] == '.' || vm->shm[strlen(prefix)] == 0) &&
	    vm_owned(vm->shm, 0))
		unlink(vm->shm);
	if (vm->disk_dir[0] && disk_dir_ours(vm->disk_dir))
		nftw(vm->disk_dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}
