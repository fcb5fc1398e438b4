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

/*
 * Names id: its routine; for a reply id (an id not listed whose request
 * id - 100 is, when (id / 100) % 2 == 1, as rpctrace does) ROUTINE-reply;
 * otherwise the number.  Returns 1 when the id is known, 0 when not.
 */
int mt_msgids_lookup(const struct mt_msgids *m, long id, struct mt_msgid_name *out);
size_t mt_msgids_count(const struct mt_msgids *m);

#endif
