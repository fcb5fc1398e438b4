/*
 * The live target's user symboliser (targets/mach/live/usyms.c) against
 * build/guest/machload: names from its .symtab as dtrace prints user
 * frames, the assembly trap stubs (untyped, unsized labels), and pcs
 * outside the program; and the one reader of guest ELF files it shares
 * with umod.c (uelf.c).  Addresses come from nm(1), not from the code
 * under test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../mt_test.h"
#include <unistd.h>
#include "targets/mach/live/live_int.h"
#include "targets/mach/live/uelf.h"
#include "targets/mach/live/umod.h"

#define MACHLOAD "build/guest/machload"

/* sym's address in machload (nm -S), and its size in *size if asked */
static unsigned long long nm_sym(const char *sym, unsigned long long *size)
{
	char cmd[256], line[256], name[128], type;
	unsigned long long a, n, found = 0;
	FILE *p;

	snprintf(cmd, sizeof cmd, "nm -S %s", MACHLOAD);
	if (!(p = popen(cmd, "r")))
		return 0;
	while (fgets(line, sizeof line, p)) {
		if (sscanf(line, "%llx %llx %c %127s", &a, &n, &type, name) == 4 &&
		    strcmp(name, sym) == 0) {
			found = a;
			if (size)
				*size = n;
		} else if (sscanf(line, "%llx %c %127s", &a, &type, name) == 3 &&
			   strcmp(name, sym) == 0) {
			found = a;
		}
	}
	pclose(p);
	return found;
}

static unsigned long long nm_addr(const char *sym)
{
	return nm_sym(sym, NULL);
}

struct find {
	const char *name;
	uint64_t value;
	int n;
};

static int find_sym(void *arg, const char *name, const GElf_Sym *s)
{
	struct find *f = arg;

	f->n++;
	if (strcmp(name, f->name) == 0)
		f->value = s->st_value;
	return 0;
}

TEST(usyms_machload_functions)
{
	char err[256];
	struct usyms *u = usyms_load(MACHLOAD, err, sizeof err);
	unsigned long long pages = nm_addr("do_pages"), rt = nm_addr("do_rt");
	const char *mod, *func;
	uint64_t off;

	CHECK(u != NULL);
	CHECK(pages != 0 && rt != 0);
	CHECK_EQ_INT(usyms_lookup(u, pages, &mod, &func, &off), 0);
	CHECK_EQ_STR(mod, "machload");
	CHECK_EQ_STR(func, "do_pages");
	CHECK_EQ_INT(off, 0);
	CHECK_EQ_INT(usyms_lookup(u, pages + 0x1c, &mod, &func, &off), 0);
	CHECK_EQ_STR(func, "do_pages");
	CHECK_EQ_INT(off, 0x1c);
	CHECK_EQ_INT(usyms_lookup(u, rt + 1, &mod, &func, &off), 0);
	CHECK_EQ_STR(func, "do_rt");
	CHECK_EQ_INT(off, 1);
	usyms_free(u);
}

TEST(usyms_trap_stubs_and_outside)
{
	char err[256];
	struct usyms *u = usyms_load(MACHLOAD, err, sizeof err);
	unsigned long long stub = nm_addr("mach_msg_trap");
	const char *mod, *func;
	uint64_t off;

	CHECK(u != NULL && stub != 0);
	/* the stub's syscall returns to stub + 10 (mov, mov, syscall) */
	CHECK_EQ_INT(usyms_lookup(u, stub + 10, &mod, &func, &off), 0);
	CHECK_EQ_STR(func, "mach_msg_trap");
	CHECK_EQ_INT(off, 10);
	CHECK(usyms_covers(u, stub));
	/* not machload's text: the stack, the kernel, page 0 */
	CHECK(!usyms_covers(u, 0x7fff0000ull));
	CHECK_EQ_INT(usyms_lookup(u, 0xffffffff81000000ull, &mod, &func, &off), -1);
	CHECK_EQ_INT(usyms_lookup(u, 0x10, &mod, &func, &off), -1);
	usyms_free(u);
}

/* Data goes by its objects' sizes, as dtrace's user symbols: phases (a
   192-byte table in .rodata, the last symbol there) at an offset, and
   past its end no symbol. */
TEST(usyms_data_objects)
{
	char err[256];
	struct usyms *u = usyms_load(MACHLOAD, err, sizeof err);
	unsigned long long size = 0, phases = nm_sym("phases", &size);
	const char *mod, *func;
	uint64_t off;

	CHECK(u != NULL && phases != 0 && size > 0x10);
	CHECK(usyms_covers(u, phases + 0x10));
	CHECK_EQ_INT(usyms_lookup(u, phases + 0x10, &mod, &func, &off), 0);
	CHECK(func != NULL);
	CHECK_EQ_STR(func, "phases");
	CHECK_EQ_INT((int)off, 0x10);
	CHECK_EQ_INT(usyms_lookup(u, phases, &mod, &func, &off), 0);
	CHECK(func != NULL);
	CHECK_EQ_STR(func, "phases");
	CHECK_EQ_INT((int)off, 0);
	/* past the object's end: in the program, no symbol */
	CHECK_EQ_INT(usyms_lookup(u, phases + size, &mod, &func, &off), 0);
	CHECK(func == NULL);
	CHECK_EQ_STR(mod, "machload");
	usyms_free(u);
}

TEST(usyms_unreadable)
{
	char err[256];

	CHECK(usyms_load("/nonexistent/prog", err, sizeof err) == NULL);
	CHECK(strstr(err, "/nonexistent/prog") != NULL);
}

TEST(uelf_machload)
{
	struct uelf u;
	struct find f = { "do_pages", 0, 0 };
	char err[256];
	GElf_Shdr sh;
	int exec = 0;

	CHECK_EQ_INT(uelf_open(&u, MACHLOAD, err, sizeof err), 0);
	CHECK(u.eh.e_machine == EM_X86_64 && u.eh.e_type == ET_EXEC);
	for (int i = 0; i < u.nsegs; i++)
		exec += u.segs[i].exec && u.segs[i].filesz > 0 &&
			u.segs[i].offset + u.segs[i].filesz <= u.size;
	CHECK(exec >= 1);
	CHECK_EQ_INT(uelf_syms(&u, find_sym, &f), 0);
	CHECK(f.n > 10);
	CHECK(f.value != 0 && f.value == nm_addr("do_pages"));
	CHECK(uelf_section(&u, ".note.stapsdt", &sh) != NULL &&
	      sh.sh_type == SHT_NOTE);
	CHECK(uelf_section(&u, ".no-such-section", &sh) == NULL);
	uelf_close(&u);
	CHECK(u.file == NULL && u.elf == NULL);
}

TEST(uelf_refuses)
{
	struct uelf u;
	struct umod m;
	char err[256], path[] = "/tmp/mt-uelf.XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	CHECK(write(fd, "#!/bin/sh\nexit 0\n", 17) == 17);
	close(fd);
	CHECK_EQ_INT(uelf_open(&u, "/nonexistent/prog", err, sizeof err), -1);
	CHECK(strstr(err, "cannot read /nonexistent/prog") != NULL);
	CHECK_EQ_INT(uelf_open(&u, path, err, sizeof err), -2);
	CHECK(strstr(err, "not a readable ELF file") != NULL);
	/* umod keeps its own words for a program that is no ELF */
	CHECK(umod_load(&m, path, umod_pid(1), err, sizeof err) < 0);
	CHECK(strstr(err, "not an x86-64 ELF program") != NULL);
	umod_free(&m);
	unlink(path);
}
MT_TEST_MAIN()
