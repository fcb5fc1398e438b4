/* Internal interfaces of targets/mach/ (the GNU Mach target). */
#ifndef TARGET_TARGET_H
#define TARGET_TARGET_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* err.c */
void mt_seterr(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* err.c: all n bytes of buf to fd, -1 on error */
int mt_write_all(int fd, const void *buf, size_t n);
/* err.c: mkdir -p, missing directories mode 0700; -1 with errno */
int mt_mkdirs(const char *dir);

/* image/kzip.c: data to fd, inflated when unzip and it is gzip
 * (concatenated members too) to at most max_out bytes; -1 with err */
int mt_write_unzipped(int fd, const unsigned char *data, size_t len, int unzip,
		      uint64_t max_out, const char *path, char *err, size_t errlen);

/* console.c: what a console line of GNU Mach means */
enum mt_con_kind {
	MT_CON_PLAIN,
	MT_CON_PANIC,           /* "panic: ..." */
	MT_CON_DEBUGGER,        /* "Debugger invoked: ..." */
	MT_CON_TRAP,            /* "Kernel ... trap, eip ..." */
	MT_CON_PROMPT,          /* the KDB prompt "db> " (a partial line) */
	MT_CON_SHIM_ERROR,      /* "shim: error: ..." (the shim halts) */
};
enum mt_con_kind mt_console_classify(const char *line);
/* Removes '\r' and trailing blanks in place; returns line. */
char *mt_console_clean(char *line);
#define MT_CON_LINE	4096		/* the longest line kept whole */
void mt_console_feed(char *line, size_t cap, size_t *used, const char *chunk, size_t n,
		     void (*fn)(void *arg, char *line, int partial), void *arg);
/* What KDB said before its prompt: the last panic line, the first
   debugger entry or trap line. */
struct mt_con_kdb {
	char panic[256], stop[256];
};
/* line's kind, a panic or debugger/trap line noted in k. */
enum mt_con_kind mt_console_note(struct mt_con_kdb *k, const char *line);
/* Why KDB stopped: the panic, else the stop line, else "kernel debugger prompt". */
const char *mt_console_why(const struct mt_con_kdb *k);
/*
 * The kernel's message buffer (kmsg_buffer at va, size bytes: every
 * character printf wrote, console or not) in guest RAM ending in the KDB
 * prompt: 1 with why (the panic, else the debugger entry or trap line),
 * else 0.  A kernel that stops before its console exists says why only
 * there.
 */
int mt_kmsg_stop(const uint8_t *ram, size_t ram_size, uint64_t va, uint64_t size, char *why,
		 size_t len);

/* boot_args.c: the -initrd string */
int mt_initrd_append(char *buf, size_t len, const char *module, int first);
int mt_module_path(const char *module, char *path, size_t len);

#endif
