/*
 * String subroutines (probe context): strjoin, substr, index/rindex/strstr,
 * strchr/strrchr, strtok, lltostr, basename/dirname, cleanpath,
 * toupper/tolower, strtoll, strcmp.  Semantics and edge cases as illumos
 * and dtrace-utils define them.  Results go to scratch: strsize bytes, at
 * most strsize - 1 characters.
 */
#include "rt.h"

#define ARG(i)		((uint32_t)(i) < ms->ttop ? ms->tuple[i].val : 0)
#define NARGS		(ms->ttop)

/* Address and length of string argument i; -1 on fault. */
int64_t rt_sarg(struct rt_mstate *ms, uint32_t i, const char **s)
{
	uint64_t a = i < NARGS ? ARG(i) : 0;

	*s = (const char *)(uintptr_t)a;
	return rt_strlen(ms, a, ms->rt->strsize - 1);
}

static char *rt_sout(struct rt_mstate *ms)
{
	return (char *)(uintptr_t)rt_alloc(ms, ms->rt->strsize);
}

uint64_t rt_strjoin(struct rt_mstate *ms)
{
	const char *a, *b;
	int64_t la = rt_sarg(ms, 0, &a), lb = rt_sarg(ms, 1, &b);
	uint64_t max = ms->rt->strsize - 1, j = 0;
	char *d;

	if (la < 0 || lb < 0 || !(d = rt_sout(ms)))
		return 0;
	for (int64_t i = 0; i < la && j < max; i++)
		d[j++] = a[i];
	for (int64_t i = 0; i < lb && j < max; i++)
		d[j++] = b[i];
	d[j] = '\0';
	return (uint64_t)(uintptr_t)d;
}

uint64_t rt_substr(struct rt_mstate *ms)
{
	const char *s;
	int64_t len = rt_sarg(ms, 0, &s), size = ms->rt->strsize - 1;
	int64_t index = (int64_t)ARG(1), remaining, i;
	char *d;

	if (len < 0 || !(d = rt_sout(ms)))
		return 0;
	remaining = NARGS > 2 ? (int64_t)ARG(2) : size;
	if (index < 0) {
		index += len;
		if (index < 0 && index + remaining > 0) {
			remaining += index;
			index = 0;
		}
	}
	if (index >= len || index < 0)
		remaining = 0;
	else if (remaining < 0)
		remaining += len - index;
	else if (index + remaining > size)
		remaining = size - index;
	for (i = 0; i < remaining && index + i < len; i++)
		d[i] = s[index + i];
	d[i] = '\0';
	return (uint64_t)(uintptr_t)d;
}

static int match_at(const char *a, const char *sub, int64_t sublen)
{
	for (int64_t k = 0; k < sublen; k++)
		if (a[k] != sub[k])
			return 0;
	return 1;
}

/* strstr (address or 0), index/rindex (position or -1). */
uint64_t rt_strsearch(struct rt_mstate *ms, uint32_t subr)
{
	const char *s, *sub;
	int64_t len = rt_sarg(ms, 0, &s), sublen = rt_sarg(ms, 1, &sub);
	int64_t pos, end, inc = 1;

	if (len < 0 || sublen < 0)
		return 0;
	if (sublen == 0 && len == 0)
		return subr == MT_SUBR_STRSTR ? (uint64_t)(uintptr_t)s : 0;
	if (subr == MT_SUBR_STRSTR) {
		for (pos = 0; pos + sublen <= len; pos++)
			if (match_at(s + pos, sub, sublen))
				return (uint64_t)(uintptr_t)(s + pos);
		return 0;
	}
	pos = 0;
	end = len;
	if (subr == MT_SUBR_RINDEX) {
		pos = len;
		end = -1;
		inc = -1;
	}
	if (NARGS == 3) {
		int64_t p = (int64_t)ARG(2);
		if (subr == MT_SUBR_RINDEX) {
			if (p < 0)
				return sublen == 0 ? 0 : (uint64_t)-1;
			if (p > len)
				p = len;
		} else {
			if (p < 0)
				p = 0;
			if (p >= len)
				return sublen == 0 ? (uint64_t)len : (uint64_t)-1;
		}
		pos = p;
	}
	for (; pos != end; pos += inc)
		if (pos + sublen <= len && match_at(s + pos, sub, sublen))
			return (uint64_t)pos;
	return (uint64_t)-1;
}

uint64_t rt_strchr(struct rt_mstate *ms, int last)
{
	const char *s;
	int64_t len = rt_sarg(ms, 0, &s);
	char c = (char)ARG(1);
	uint64_t r = 0;

	if (len < 0)
		return 0;
	for (int64_t i = 0; i <= len; i++) {
		if ((i < len ? s[i] : '\0') == c) {
			r = (uint64_t)(uintptr_t)(s + i);
			if (!last)
				break;
		}
	}
	return r;
}

uint64_t rt_strtok(struct rt_mstate *ms)
{
	struct rt_cpu *c = ms->c;
	const char *tok;
	int64_t toklen = rt_sarg(ms, 1, &tok), len;
	uint8_t map[32];
	uint64_t addr = ARG(0);
	const char *s;
	char *d;
	int64_t i, j;

	if (toklen < 0)
		return 0;
	if (addr == 0) {
		addr = c->strtok;
		if (addr == 0) {
			rt_fault(ms, MT_FLT_BADADDR, 0);
			return 0;
		}
	}
	len = rt_strlen(ms, addr, ms->rt->strsize - 1);
	if (len < 0 || !(d = rt_sout(ms)))
		return 0;
	s = (const char *)(uintptr_t)addr;
	for (i = 0; i < 32; i++)
		map[i] = 0;
	for (i = 0; i < toklen; i++)
		map[(uint8_t)tok[i] >> 3] |= 1 << ((uint8_t)tok[i] & 7);
	for (i = 0; i < len; i++)
		if (!(map[(uint8_t)s[i] >> 3] & (1 << ((uint8_t)s[i] & 7))))
			break;
	if (i == len) {
		c->strtok = 0;
		return 0;
	}
	for (j = 0; i < len; i++) {
		if (map[(uint8_t)s[i] >> 3] & (1 << ((uint8_t)s[i] & 7)))
			break;
		d[j++] = s[i];
	}
	d[j] = '\0';
	c->strtok = addr + (uint64_t)i;
	return (uint64_t)(uintptr_t)d;
}

uint64_t rt_lltostr(struct rt_mstate *ms)
{
	int64_t v = (int64_t)ARG(0);
	uint64_t base = NARGS > 1 ? ARG(1) : 10, u;
	char *d = rt_sout(ms), tmp[72];
	int n = 0, k = 0;

	if (!d)
		return 0;
	if (base < 2 || base > 36) {
		rt_fault(ms, MT_FLT_ILLOP, base);
		return 0;
	}
	u = (base == 10 && v < 0) ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		uint64_t dg = u % base;
		tmp[n++] = (char)(dg < 10 ? '0' + dg : 'a' + dg - 10);
		u /= base;
	} while (u);
	if (base == 10 && v < 0)
		d[k++] = '-';
	if (base == 16) {
		d[k++] = '0';
		d[k++] = 'x';
	} else if (base == 8 && v != 0) {
		d[k++] = '0';
	}
	while (n > 0 && k < (int)ms->rt->strsize - 1)
		d[k++] = tmp[--n];
	d[k] = '\0';
	return (uint64_t)(uintptr_t)d;
}

uint64_t rt_pathname(struct rt_mstate *ms, uint32_t subr)
{
	const char *src;
	int64_t len = rt_sarg(ms, 0, &src);
	int64_t i, j, lastbase = -1, firstbase = -1, lastdir = -1, start, end;
	char *d;

	if (len < 0 || !(d = rt_sout(ms)))
		return 0;
	if (len == 0) {
		len = 1;
		src = ".";
	}
	for (i = len - 1; i >= 0 && src[i] == '/'; i--)
		;
	if (i >= 0)
		lastbase = i;
	for (; i >= 0 && src[i] != '/'; i--)
		;
	if (i >= 0)
		firstbase = i + 1;
	for (; i >= 0 && src[i] == '/'; i--)
		;
	if (i >= 0)
		lastdir = i;
	if (lastbase == -1)
		firstbase = lastbase = lastdir = 0;
	if (firstbase == -1) {
		if (subr == MT_SUBR_DIRNAME) {
			src = ".";
			lastdir = 0;
		} else {
			firstbase = 0;
		}
	}
	if (subr == MT_SUBR_DIRNAME) {
		if (lastdir == -1)
			lastdir = 0;
		start = 0;
		end = lastdir;
	} else {
		start = firstbase;
		end = lastbase;
	}
	for (i = start, j = 0; i <= end && j < (int64_t)ms->rt->strsize - 1;
	     i++, j++)
		d[j] = src[i];
	d[j] = '\0';
	return (uint64_t)(uintptr_t)d;
}

/*
 * cleanpath() as dtrace-utils defines it (lexical, like Go's path.Clean):
 * collapse "//", drop "." and trailing "/", resolve ".." against the
 * previous element ("/.." is "/"; leading ".." of a relative path stay);
 * an empty result is "." ("" stays "").
 */
uint64_t rt_cleanpath(struct rt_mstate *ms)
{
	const char *p;
	int64_t n = rt_sarg(ms, 0, &p), r = 0, w = 0, dotdot = 0;
	int64_t max = (int64_t)ms->rt->strsize - 1;
	int rooted;
	char *d;

	if (n < 0 || !(d = rt_sout(ms)))
		return 0;
	if (n == 0) {
		d[0] = '\0';
		return (uint64_t)(uintptr_t)d;
	}
#define PUT(c) do { if (w < max) d[w] = (c); w++; } while (0)
	rooted = p[0] == '/';
	if (rooted) {
		PUT('/');
		r = dotdot = 1;
	}
	while (r < n) {
		if (p[r] == '/') {
			r++;
		} else if (p[r] == '.' && (r + 1 == n || p[r + 1] == '/')) {
			r++;
		} else if (p[r] == '.' && r + 1 < n && p[r + 1] == '.' &&
			   (r + 2 == n || p[r + 2] == '/')) {
			r += 2;
			if (w > dotdot) {
				w--;
				while (w > dotdot && (w >= max || d[w] != '/'))
					w--;
			} else if (!rooted) {
				if (w > 0)
					PUT('/');
				PUT('.');
				PUT('.');
				dotdot = w;
			}
		} else {
			if ((rooted && w != 1) || (!rooted && w != 0))
				PUT('/');
			for (; r < n && p[r] != '/'; r++)
				PUT(p[r]);
		}
	}
#undef PUT
	if (w == 0)
		d[w++] = '.';
	d[w < max ? w : max] = '\0';
	return (uint64_t)(uintptr_t)d;
}

uint64_t rt_casemap(struct rt_mstate *ms, int upper)
{
	const char *s;
	int64_t len = rt_sarg(ms, 0, &s);
	char *d;

	if (len < 0 || !(d = rt_sout(ms)))
		return 0;
	for (int64_t i = 0; i < len; i++) {
		char c = s[i];
		if (upper && c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		else if (!upper && c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		d[i] = c;
	}
	d[len] = '\0';
	return (uint64_t)(uintptr_t)d;
}

uint64_t rt_strtoll(struct rt_mstate *ms)
{
	const char *s;
	int64_t len = rt_sarg(ms, 0, &s), i = 0;
	uint64_t base = NARGS > 1 ? ARG(1) : 10, v = 0;
	int neg = 0;

	if (len < 0)
		return 0;
	if (base < 2 || base > 36) {
		rt_fault(ms, MT_FLT_ILLOP, base);
		return 0;
	}
	while (i < len && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')))
		i++;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (base == 16 && i + 1 < len && s[i] == '0' &&
	    (s[i + 1] == 'x' || s[i + 1] == 'X'))
		i += 2;
	for (; i < len; i++) {
		char c = s[i];
		uint64_t dg;
		if (c >= '0' && c <= '9')
			dg = (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'z')
			dg = (uint64_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'Z')
			dg = (uint64_t)(c - 'A' + 10);
		else
			break;
		if (dg >= base)
			break;
		v = v * base + dg;
	}
	return neg ? 0 - v : v;
}

uint64_t rt_strcmp(struct rt_mstate *ms)
{
	const char *a, *b;
	int64_t la = rt_sarg(ms, 0, &a), lb = rt_sarg(ms, 1, &b);

	if (la < 0 || lb < 0)
		return 0;
	for (int64_t i = 0;; i++) {
		int x = i < la ? (uint8_t)a[i] : 0, y = i < lb ? (uint8_t)b[i] : 0;
		if (x != y)
			return (uint64_t)(int64_t)(x - y);
		if (!x)
			return 0;
	}
}

