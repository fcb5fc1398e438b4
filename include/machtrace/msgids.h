/*
 * MIG message ids to names, from msgids files in rpctrace's format: one
 * routine per line, `subsystem base routine n request-id reply-id` (MIG's
 * `-n -list` output; the Hurd installs them in /usr/share/msgids).
 */
#ifndef MACHTRACE_MSGIDS_H
#define MACHTRACE_MSGIDS_H

#include <stddef.h>

struct mt_msgids;

struct mt_msgid_name {
	char subsystem[64];     /* "" when unknown */
	char routine[96];       /* ROUTINE, ROUTINE-reply, or the id in decimal */
};

struct mt_msgids *mt_msgids_new(void);
void mt_msgids_free(struct mt_msgids *m);

/*
 * Adds the routines of one file; a later entry for an id replaces an
 * earlier one, so a user's files can override the system's.  Returns the
 * number of routines read, or -1 with err set (unreadable file, malformed
 * line: the file's entries are then not added).
 */
int mt_msgids_load_file(struct mt_msgids *m, const char *path, char *err, size_t len);
/* Every *.msgids in dir, in name order; a missing dir adds nothing (0). */
int mt_msgids_load_dir(struct mt_msgids *m, const char *dir, char *err, size_t len);
/* A user's path: a file, or a directory as load_dir; a missing path or a
   directory without routines is an error. */
int mt_msgids_load_path(struct mt_msgids *m, const char *path, char *err, size_t len);
/* As load_file, from size bytes of text (name: for errors). */
int mt_msgids_load_text(struct mt_msgids *m, const char *text, size_t size, const char *name,
			char *err, size_t len);

/*
 * The msgids files generated at build time from gnumach-dev's and the
 * project's .defs (every build/msgids/NAME.msgids, in name order), compiled in.
 */
extern const char mt_msgids_builtin_text[];
extern const size_t mt_msgids_builtin_size;

/*
 * Every source of names, later overriding earlier as rpctrace does with
 * several files: the built-in files, every *.msgids of sysdir (the host's
 * /usr/share/msgids; NULL or missing: none), then each of paths (files or
 * directories, mt_msgids_load_path).  NULL with err set on a bad source.
 */
struct mt_msgids *mt_msgids_open(const char *sysdir, char *const *paths, int npaths,
				 char *err, size_t len);
#define MT_MSGIDS_SYSDIR	"/usr/share/msgids"

/* Entry i (0 ..) in ascending id order, one per id; 0 past the end. */
struct mt_msgid_entry {
	long id;
	int is_reply;
	const char *subsystem, *routine;
};
int mt_msgids_entry(const struct mt_msgids *m, size_t i, struct mt_msgid_entry *out);

/*
 * Names id: its routine; for a reply id (an id not listed whose request
 * id - 100 is, when (id / 100) % 2 == 1, as rpctrace does) ROUTINE-reply;
 * otherwise the number.  Returns 1 when the id is known, 0 when not.
 */
int mt_msgids_lookup(const struct mt_msgids *m, long id, struct mt_msgid_name *out);
/* Distinct ids known. */
size_t mt_msgids_count(const struct mt_msgids *m);

#endif
