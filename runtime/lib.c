/*
 * Small freestanding helpers (probe context; see rt.h).  Written as plain
 * loops: the build uses -fno-builtin -fno-tree-loop-distribute-patterns so
 * the compiler does not turn them back into libc calls.
 */
#include "rt.h"

void rt_memcpy(void *dst, const void *src, uint64_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (((uintptr_t)d | (uintptr_t)s | n) % 8 == 0) {
		uint64_t *d8 = dst;
		const uint64_t *s8 = src;
		for (uint64_t i = 0; i < n / 8; i++)
			d8[i] = s8[i];
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		d[i] = s[i];
}

void rt_memset(void *dst, int c, uint64_t n)
{
	uint8_t *d = dst;

	if (c == 0 && ((uintptr_t)d | n) % 8 == 0) {
		uint64_t *d8 = dst;
		for (uint64_t i = 0; i < n / 8; i++)
			d8[i] = 0;
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		d[i] = (uint8_t)c;
}

int rt_memcmp(const void *a, const void *b, uint64_t n)
{
	const uint8_t *x = a, *y = b;

	for (uint64_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* Multiplicative hash, a word at a time for 8-aligned keys (all keys the
   runtime builds are), FNV-1a bytewise otherwise. */
uint32_t rt_hash(const void *p, uint64_t n, uint32_t h)
{
	const uint8_t *s = p;
	uint64_t x = h ? h : 0x9e3779b97f4a7c15ull;

	if (((uintptr_t)p | n) % 8 == 0) {
		const uint64_t *w = p;
		for (uint64_t i = 0; i < n / 8; i++) {
			x ^= w[i];
			x *= 0xff51afd7ed558ccdull;
			x ^= x >> 32;
		}
		return (uint32_t)(x ^ (x >> 29));
	}
	h = 2166136261u ^ (uint32_t)x;
	for (uint64_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 16777619u;
	}
	return h;
}

/* Bounded message builder for verifier/init errors. */
void rt_err_str(struct rt_err *e, const char *s)
{
	if (!e->buf || e->len == 0)
		return;
	while (*s && e->pos + 1 < e->len)
		e->buf[e->pos++] = *s++;
	e->buf[e->pos] = '\0';
}

void rt_err_num(struct rt_err *e, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	char out[24];
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
	rt_err_str(e, out);
}
