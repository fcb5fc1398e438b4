/* The few libc functions the freestanding tasks need (gcc may call memset/memcpy). */
#include "mach.h"

void *memset(void *d, int c, unsigned long n)
{
	u8 *p = d;

	while (n--)
		*p++ = (u8)c;
	return d;
}

void *memcpy(void *d, const void *s, unsigned long n)
{
	u8 *p = d;
	const u8 *q = s;

	while (n--)
		*p++ = *q++;
	return d;
}

u64 strlen(const char *s)
{
	u64 n = 0;

	while (s[n])
		n++;
	return n;
}

int streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* The rest of s after prefix p, or 0 when s does not start with p. */
const char *prefix(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return 0;
	return s;
}

u64 atou(const char *s)
{
	u64 v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (u64)(*s++ - '0');
	return v;
}
