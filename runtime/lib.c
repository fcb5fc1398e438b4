/*
 * Small freestanding helpers (see rt.h for the inline memory and hash
 * helpers used in probe context).
 */
#include "rt.h"

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
