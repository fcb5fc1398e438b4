/*
 * Booting a Hurd-style disk image: what GRUB would boot from it.
 *
 * mt_disk_plan() opens a raw disk image (a whole-disk ext2/3/4 file system
 * or an MBR-partitioned disk, each partition tried in order), finds the file
 * system holding /boot/grub/grub.cfg, picks grub.cfg's default entry, and
 * copies that entry's multiboot kernel and modules out of the image into a
 * private temporary directory (gzip files decompressed, as GRUB does
 * unless `module --nounzip`).  The plan then boots like --kernel/--module:
 * mt_disk_boot_opts() fills a struct mt_boot_opts, whose `disk` attaches the
 * image as the first IDE disk.
 *
 * Module strings are GRUB's: the words after the file name, joined by
 * spaces (GRUB 2.06's rule: a word with a space is put in "...", and
 * \ ' " are backslash-escaped), so a Hurd module line's '${host-port}' or
 * '$(task-create)' reaches GNU Mach's boot script without quotes.  The file
 * is stored as DIR/mN/WORD0, WORD0 being the first of those words, so that
 * the shim (which reduces a module's path to its basename) hands the
 * kernel exactly the string GRUB would.
 */
#ifndef MACHTRACE_DISK_H
#define MACHTRACE_DISK_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "machtrace/mach.h"

#define MT_DISK_STR_MAX 2048            /* one command line */

/* What grub.cfg's default entry boots; paths are as written in grub.cfg. */
struct mt_grub_boot {
	char title[256];                /* the menuentry's title */
	char kernel[PATH_MAX];          /* multiboot FILE, device prefix stripped */
	char kernel_args[MT_DISK_STR_MAX];      /* GRUB's kernel command line
						   without the FILE word */
	int nmodules;
	struct {
		char path[PATH_MAX];    /* module FILE, device prefix stripped */
		char args[MT_DISK_STR_MAX];     /* the words after FILE */
		int nounzip;            /* module --nounzip */
	} modules[MT_BOOT_MAX_MODULES];
};

/*
 * Parses the text of a grub.cfg and picks the entry GRUB boots by default:
 * `set default=N|"title"|ID|"N>M"` (last assignment wins; if/else branches
 * are all read), else the first menuentry.  Returns 0, or -1 with err
 * filled (no entries, no such default, no multiboot line, an unset
 * variable on a multiboot/module line, unbalanced quotes or braces).
 */
int mt_grub_parse(const char *text, struct mt_grub_boot *out, char *err, size_t errlen);

struct mt_disk_plan {
	char image[PATH_MAX];           /* the image to attach */
	char dir[PATH_MAX / 2];         /* private temporary directory */
	uint64_t fs_offset;             /* byte offset of the file system */
	int partition;                  /* 0: whole disk, else MBR partition 1-4 */
	char title[256];                /* the chosen menuentry */
	char kernel[PATH_MAX];          /* the extracted, decompressed kernel */
	char kernel_args[MT_DISK_STR_MAX];
	int nmodules;
	char modules[MT_BOOT_MAX_MODULES][PATH_MAX + MT_DISK_STR_MAX];
					/* "PATH args" for mt_boot_opts.modules */
};

/*
 * Plans the boot of a disk image.  Returns 0, or -1 with err filled (and
 * nothing left on disk).  Release a plan with mt_disk_plan_free().
 */
int mt_disk_plan(const char *image, struct mt_disk_plan *p, char *err, size_t errlen);
/* Removes the plan's temporary directory (safe on a zeroed plan). */
void mt_disk_plan_free(struct mt_disk_plan *p);
/* Points o's kernel, kernel_args, modules and disk at the plan. */
void mt_disk_boot_opts(const struct mt_disk_plan *p, struct mt_boot_opts *o);

#endif
