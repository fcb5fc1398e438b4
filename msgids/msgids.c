/*
 * msgids files to names.  Entries live in one array kept sorted by id,
 * one entry per id: after each file, the later-loaded entry of an id
 * replaces the earlier one.  A lookup is a binary search.  Every request
 * id and every reply id of a line is an entry; reply entries carry
 * is_reply and name their routine ROUTINE-reply.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "machtrace/msgids.h"
#include "machtrace/vec.h"

struct entry {
	long id;
	unsigned long seq;      /* load order: higher wins */
	int is_reply;
	char subsystem[64];
	char routine[80];
};

struct mt_msgids {
	struct entry *v;
	size_t n, cap;
	unsigned long seq;
};

static void seterr(char *err, size_t len, const char *path, int line, const char *what)
{
	if (!err || !len)
		return;
	if (line)
		snprintf(err, len, "%s:%d: %s", path, line, what);
	else
		snprintf(err, len, "%s: %s", path, what);
}

struct mt_msgids *mt_msgids_new(void)
{
	return calloc(1, sizeof(struct mt_msgids));
}

void mt_msgids_free(struct mt_msgids *m)
{
	if (m)
		free(m->v);
	free(m);
}

size_t mt_msgids_count(const struct mt_msgids *m)
{
	return m->n;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

static int push(struct mt_msgids *m, long id, int is_reply, const char *sub, const char *routine)
{
	struct entry *e;

	if (MT_VEC_ROOM(m->v, m->n, m->cap, 256) != 0)
		return -1;
	e = &m->v[m->n++];
	e->id = id;
	e->seq = ++m->seq;
	e->is_reply = is_reply;
	snprintf(e->subsystem, sizeof e->subsystem, "%s", sub);
	snprintf(e->routine, sizeof e->routine, "%s", routine);
	return 0;
}

/* One line: subsystem base routine n request-id reply-id.  0 ok, -1 bad. */
static int parse_line(char *line, char *sub, char *routine, long *req, long *rep)
{
	long base, n;
	int used = 0;

	if (sscanf(line, "%63s %ld %79s %ld %ld %ld %n", sub, &base, routine, &n, req, rep, &used) != 6)
		return -1;
	if (*req < INT32_MIN || *req > INT32_MAX || *rep < INT32_MIN || *rep > INT32_MAX)
		return -1;
	return line[used] == '\0' ? 0 : -1;
}

/* Sorts the entries and keeps, of each id, the latest-loaded one. */
static void settle(struct mt_msgids *m)
{
	size_t k = 0;

	qsort(m->v, m->n, sizeof *m->v, cmp_entry);
	for (size_t i = 0; i < m->n; i++)
		if (k == 0 || m->v[k - 1].id != m->v[i].id)
			m->v[k++] = m->v[i];
	m->n = k;
}

#define LINE_MAX_LEN	511

/* The lines of f (named path in errors); as mt_msgids_load_file. */
static int load_stream(struct mt_msgids *m, FILE *f, const char *path, char *err, size_t len)
{
	size_t first = m->n, cap = 0;
	char *buf = NULL;
	ssize_t got;
	int lineno = 0, count = 0;

	while ((got = getline(&buf, &cap, f)) >= 0) {
		char sub[64], routine[80];
		long req, rep;
		char *p = buf + strspn(buf, " \t");

		lineno++;
		if (strlen(buf) != (size_t)got) {
			seterr(err, len, path, lineno, "holds a NUL byte (not a text file?)");
			goto bad;
		}
		if (*p == '\n' || *p == '\0' || *p == '#')
			continue;
		if (got > LINE_MAX_LEN) {
			seterr(err, len, path, lineno, "line too long");
			goto bad;
		}
		p[strcspn(p, "\n")] = '\0';
		if (parse_line(p, sub, routine, &req, &rep)) {
			seterr(err, len, path, lineno,
			       "expected 'subsystem base routine n request-id reply-id' (32-bit ids)");
			goto bad;
		}
		if (push(m, req, 0, sub, routine) || push(m, rep, 1, sub, routine)) {
			seterr(err, len, path, lineno, "out of memory");
			goto bad;
		}
		count++;
	}
	if (ferror(f)) {
		seterr(err, len, path, 0, errno == ENOMEM ? "out of memory" : "read error");
		goto bad;
	}
	free(buf);
	settle(m);
	return count;
bad:
	free(buf);
	m->n = first;
	return -1;
}

/*
 * Only a regular file is read: opened without blocking (a FIFO with no
 * writer would wait forever) and checked before the first read.
 */
int mt_msgids_load_file(struct mt_msgids *m, const char *path, char *err, size_t len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), k;
	struct stat st;
	FILE *f;

	if (fd < 0 || fstat(fd, &st) != 0) {
		seterr(err, len, path, 0, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		seterr(err, len, path, 0, "not a regular file");
		close(fd);
		return -1;
	}
	if (!(f = fdopen(fd, "r"))) {
		seterr(err, len, path, 0, strerror(errno));
		close(fd);
		return -1;
	}
	k = load_stream(m, f, path, err, len);
	fclose(f);
	return k;
}

int mt_msgids_load_text(struct mt_msgids *m, const char *text, size_t size, const char *name,
			char *err, size_t len)
{
	FILE *f;
	int k;

	if (size == 0)
		return 0;
	if (!(f = fmemopen((void *)text, size, "r"))) {
		seterr(err, len, name, 0, strerror(errno));
		return -1;
	}
	k = load_stream(m, f, name, err, len);
	fclose(f);
	return k;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && strcmp(s + a - b, suffix) == 0;
}

int mt_msgids_load_dir(struct mt_msgids *m, const char *dir, char *err, size_t len)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), total = 0;

	if (n < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : (seterr(err, len, dir, 0, strerror(errno)), -1);
	for (int i = 0; i < n; i++) {
		if (total >= 0 && has_suffix(names[i]->d_name, ".msgids")) {
			char path[4096];
			int k;

			snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
			k = mt_msgids_load_file(m, path, err, len);
			total = k < 0 ? -1 : total + k;
		}
		free(names[i]);
	}
	free(names);
	return total;
}

int mt_msgids_load_path(struct mt_msgids *m, const char *path, char *err, size_t len)
{
	struct stat st;
	int k;

	if (stat(path, &st) != 0) {
		seterr(err, len, path, 0, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return mt_msgids_load_file(m, path, err, len);
	k = mt_msgids_load_dir(m, path, err, len);
	if (k == 0)
		seterr(err, len, path, 0, "no routines in any *.msgids file of this directory");
	return k == 0 ? -1 : k;
}

struct mt_msgids *mt_msgids_open(const char *sysdir, char *const *paths, int npaths,
				 char *err, size_t len)
{
	struct mt_msgids *m = mt_msgids_new();

	if (!m) {
		seterr(err, len, "msgids", 0, "out of memory");
		return NULL;
	}
	if (mt_msgids_load_text(m, mt_msgids_builtin_text, mt_msgids_builtin_size,
				"(built-in msgids)", err, len) < 0 ||
	    (sysdir && mt_msgids_load_dir(m, sysdir, err, len) < 0))
		goto fail;
	for (int i = 0; i < npaths; i++)
		if (mt_msgids_load_path(m, paths[i], err, len) < 0)
			goto fail;
	return m;
fail:
	mt_msgids_free(m);
	return NULL;
}

int mt_msgids_entry(const struct mt_msgids *m, size_t i, struct mt_msgid_entry *out)
{
	if (i >= m->n)
		return 0;
	out->id = m->v[i].id;
	out->is_reply = m->v[i].is_reply;
	out->subsystem = m->v[i].subsystem;
	out->routine = m->v[i].routine;
	return 1;
}

static const struct entry *find(const struct mt_msgids *m, long id)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {       /* first entry with v[i].id >= id */
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->v[lo].id == id ? &m->v[lo] : NULL;
}

static void name(struct mt_msgid_name *out, const struct entry *e, int reply)
{
	snprintf(out->subsystem, sizeof out->subsystem, "%s", e->subsystem);
	snprintf(out->routine, sizeof out->routine, "%s%s", e->routine, reply ? "-reply" : "");
}

int mt_msgids_lookup(const struct mt_msgids *m, long id, struct mt_msgid_name *out)
{
	const struct entry *e = find(m, id);

	if (e) {
		name(out, e, e->is_reply);
		return 1;
	}
	if ((id / 100) % 2 == 1 && (e = find(m, id - 100)) && !e->is_reply) {
		name(out, e, 1);
		return 1;
	}
	out->subsystem[0] = '\0';
	snprintf(out->routine, sizeof out->routine, "%ld", id);
	return 0;
}
