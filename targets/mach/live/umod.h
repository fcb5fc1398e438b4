/*
 * Guest user programs (the boot modules) for the usdt and pid providers,
 * host side: their functions from the ELF symbol table, their static
 * probes from the .note.stapsdt notes of <sys/sdt.h> (systemtap's format,
 * as bpftrace and dtrace-utils read it), and the instructions a user site
 * may displace (which ones the blob can emulate).
 */
#ifndef TARGET_LIVE_UMOD_H
#define TARGET_LIVE_UMOD_H

#include <stddef.h>
#include <stdint.h>
#include "machtrace/lkabi.h"

struct ufunc {
	char *name;
	uint64_t addr, size;
};

/* One stapsdt note: provider and name as written ("phase__start"). */
struct usdt_note {
	char *prov, *name, *args;
	uint64_t pc, sem;
};

struct umod {
	char *path;
	char name[64];			/* the program's basename: MODULE */
	uint32_t pid;
	struct ufunc *funcs;		/* STT_FUNC symbols, sorted by addr */
	size_t nfuncs;
	struct usdt_note *notes;
	size_t nnotes;
	uint8_t *file;			/* the ELF's bytes */
	size_t filesize;
	struct useg { uint64_t va, filesz, off; int exec; } segs[8];
	int nsegs;
	/* data objects, for "sym(%reg)" argument operands */
	struct ufunc *objs;
	size_t nobjs;
};

/* The pid of boot module k (1-based, in boot order): the one place the
   rule lives (the kernel numbers tasks at creation, the first module
   is the first user task). */
uint32_t umod_pid(int k);

/* Read the ELF at path as the program of task pid; -1 with err. */
int umod_load(struct umod *m, const char *path, uint32_t pid, char *err, size_t errlen);
void umod_free(struct umod *m);
/* The n file bytes at va in an executable segment, NULL if not all there. */
const uint8_t *umod_text(const struct umod *m, uint64_t va, size_t n);
const struct ufunc *umod_func(const struct umod *m, const char *name);
const struct ufunc *umod_func_at(const struct umod *m, uint64_t va);
/* Offsets of f's instructions (at most max), -1 if undecodable. */
int umod_insn_offsets(const struct umod *m, const struct ufunc *f, uint32_t *offs, int max);

/* Parse one note's descriptor (64-bit: pc, base, semaphore, then three
   strings); 0, or -1 if malformed.  Strings are malloc'd. */
int usdt_parse_note(const uint8_t *desc, size_t len, struct usdt_note *n);
void usdt_note_free(struct usdt_note *n);
/* "__" -> "-", as dtrace names USDT probes. */
void usdt_probe_name(const char *note_name, char *out, size_t len);
/*
 * Parse a note's argument string ("-4@%edi 8@%rsi -8@16(%rbp) 4@$5",
 * "8@phases(%rbx)") into out[max]; sym resolves a symbol operand (NULL:
 * none allowed).  Returns the count, or -1 with err naming the operand.
 */
int usdt_parse_args(const char *s, struct lk_uarg *out, int max,
		    int (*sym)(void *arg, const char *name, uint64_t *va), void *symarg,
		    char *err, size_t errlen);

/*
 * The emulation of the instruction at code (len bytes available, at
 * user VA va) for a user site: s->emul, len, reg, reg2, imm filled, 0;
 * or -1 with why naming the instruction ("call 0x401000 cannot be
 * emulated").
 */
int uemul_classify(const uint8_t *code, size_t len, uint64_t va, struct lk_usite *s,
		   char *why, size_t whylen);

#endif
