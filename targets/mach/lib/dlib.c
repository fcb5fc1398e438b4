/*
 * The kernel D library (targets/mach/lib/mach.d), embedded at build time
 * so that the binary needs no installed file: its text, NUL-terminated.
 */
#include "machtrace/live.h"

__asm__(".section .rodata\n"
	".type mt_mach_dlib_text, @object\n"
	"mt_mach_dlib_text:\n"
	".incbin \"targets/mach/lib/mach.d\"\n"
	".byte 0\n"
	".size mt_mach_dlib_text, . - mt_mach_dlib_text\n"
	".previous\n");
extern const char mt_mach_dlib_text[];

const char *mt_live_dlib(const char **name)
{
	if (name)
		*name = "mach.d";
	return mt_mach_dlib_text;
}
