/*
 * The kernel text of a guest (its RAM file, offset = physical address)
 * against the kernel image: the "nothing left behind" check of detach and
 * of the deadman.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "machtrace/live.h"
#include "targets/mach/live/live_int.h"
#include "targets/mach/mach_int.h"

/*
 * The image's text from *start (_start) to end, *start moved to its first
 * file-backed byte: the SMP images' _start ends .boot, and .text's segment
 * begins a few bytes on, aligned, the bytes between in no segment.  NULL
 * when there is no text.
 */
const uint8_t *live_text_image(struct mt_kimg *k, uint64_t *start, uint64_t end)
{
	for (int pad = 0; pad < 64 && *start < end && !mt_kimg_bytes(k, *start, 1); pad++)
		(*start)++;
	return *start < end ? mt_kimg_bytes(k, *start, end - *start) : NULL;
}

int mt_live_text_check(const char *ramfile, const char *kernel, uint64_t *where,
		       uint64_t *len, char *err, size_t errlen)
{
	struct mt_kimg *k = mt_kimg_open(kernel, err, errlen);
	uint64_t start, end;
	const uint8_t *img, *ram;
	struct stat st;
	int fd, rc = 0;

	*where = 0;
	if (!k)
		return -1;
	if (mt_kimg_symbol(k, "_start", &start) < 0 || mt_kimg_symbol(k, "etext", &end) < 0)
		start = end = 0;
	if (!(img = live_text_image(k, &start, end))) {
		mt_seterr(err, errlen, "%s: no text between _start and etext", kernel);
		mt_kimg_close(k);
		return -1;
	}
	*len = end - start;
	fd = open(ramfile, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || (uint64_t)st.st_size < end - LK_KERNEL_MAP_BASE) {
		mt_seterr(err, errlen, "%s: not a guest RAM file", ramfile);
		if (fd >= 0)
			close(fd);
		mt_kimg_close(k);
		return -1;
	}
	ram = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (ram == MAP_FAILED) {
		mt_seterr(err, errlen, "%s: cannot map", ramfile);
		mt_kimg_close(k);
		return -1;
	}
	for (uint64_t i = 0; i < end - start; i++)
		if (ram[start - LK_KERNEL_MAP_BASE + i] != img[i]) {
			*where = start + i;
			rc = 1;
			break;
		}
	munmap((void *)ram, (size_t)st.st_size);
	mt_kimg_close(k);
	return rc;
}
