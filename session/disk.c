/*
 * --disk IMAGE: trace the system a Hurd-style disk image boots.  The
 * kernel, its command line and the boot modules are the default entry of
 * the image's /boot/grub/grub.cfg (targets/mach/disk/), extracted to a
 * temporary directory that mt_session_machine_free removes; the image is
 * attached as the guest's first IDE disk (--snapshot: its writes are
 * dropped when QEMU exits).
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machtrace/disk.h"
#include "machtrace/session.h"

/* Does the ELF file have a section named name (and is it an ELF at all)? */
static int elf_sections(const char *path, int *symtab, int *debug_info)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = -1;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e;

	*symtab = *debug_info = 0;
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && elf_getshdrstrndx(e, &shstrndx) == 0) {
		while ((scn = elf_nextscn(e, scn)) != NULL) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(e, shstrndx, sh.sh_name);
			if (sh.sh_type == SHT_SYMTAB)
				*symtab = 1;
			if (name && strcmp(name, ".debug_info") == 0)
				*debug_info = 1;
		}
		r = 0;
	}
	if (e)
		elf_end(e);
	close(fd);
	return r;
}

static int check_kernel(const struct mt_disk_plan *p, FILE *err)
{
	int symtab, dwarf;

	if (elf_sections(p->kernel, &symtab, &dwarf) < 0) {
		fprintf(err, "dtrace: --disk %s: the kernel of '%s' is not an ELF "
			"file (GNU Mach for x86_64 is)\n", p->image, p->title);
		return -1;
	}
	if (!symtab) {
		fprintf(err, "dtrace: --disk %s: the kernel of '%s' has no symbol "
			"table: machtrace cannot place probes in it (install a "
			"debug gnumach, docs/disk.md)\n", p->image, p->title);
		return -1;
	}
	if (!dwarf)
		fprintf(err, "dtrace: --disk %s: the kernel of '%s' has no DWARF: "
			"fbt probes work by symbol, but args[] have no types and "
			"kernel types are unknown (install a debug gnumach, "
			"docs/disk.md)\n", p->image, p->title);
	return 0;
}

int
mt_session_machine_disk(struct mt_session_machine *m, FILE *err)
{
	struct mt_disk_plan *disk_plan;
	char msg[1024], *entry;

	if (!m->disk) {
		if (m->disk_snapshot) {
			fprintf(err, "dtrace: --snapshot goes with --disk IMAGE\n");
			return -1;
		}
		return 0;
	}
	if (m->mach.kernel || m->mach.nmodules || m->cmd_c || m->mach.workload) {
		fprintf(err, "dtrace: --disk boots the kernel and modules its "
			"grub.cfg names: it does not go with %s\n",
			m->mach.kernel ? "--kernel" : m->mach.nmodules ? "--module" :
			m->cmd_c ? "-c" : "--workload");
		return -1;
	}
	if (!(disk_plan = m->plan = calloc(1, sizeof(*disk_plan)))) {
		fprintf(err, "dtrace: out of memory\n");
		return -1;
	}
	if (mt_disk_plan(m->disk, disk_plan, msg, sizeof(msg)) != 0) {
		fprintf(err, "dtrace: --disk: %s\n", msg);
		free(disk_plan);
		m->plan = NULL;
		return -1;
	}
	if ((size_t)disk_plan->nmodules > sizeof(m->mach.modules) / sizeof(m->mach.modules[0])) {
		fprintf(err, "dtrace: --disk %s: '%s' has %d modules, machtrace "
			"boots at most %zu\n", disk_plan->image, disk_plan->title,
			disk_plan->nmodules, sizeof(m->mach.modules) / sizeof(m->mach.modules[0]));
		return -1;
	}
	if (check_kernel(m->plan, err) != 0)
		return -1;
	m->mach.kernel = disk_plan->kernel;
	m->kernel_args = disk_plan->kernel_args;
	for (int i = 0; i < disk_plan->nmodules; i++)
		m->mach.modules[i] = disk_plan->modules[i];
	m->mach.nmodules = disk_plan->nmodules;
	m->disk = disk_plan->image;
	if ((entry = malloc(sizeof(disk_plan->image) + sizeof(disk_plan->title) + 32)))
		sprintf(entry, "%s, entry '%s'", disk_plan->image, disk_plan->title);
	m->disk_entry = entry;
	if (m->verbose)
		fprintf(err, "dtrace: --disk %s: booting '%s' (file system at "
			"byte %llu), %d module(s)%s\n", disk_plan->image,
			disk_plan->title, (unsigned long long)disk_plan->fs_offset,
			disk_plan->nmodules, m->disk_snapshot ? ", writes dropped" : "");
	return 0;
}
