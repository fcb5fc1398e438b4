/*
 * D subroutines (CALL), probe context.  Semantics follow illumos and
 * dtrace-utils dtrace_dif_subr, edge cases included.  Arguments are the
 * tuple stack entries; string results go to scratch (strsize bytes, at most
 * strsize - 1 characters).  Kernel-only subroutines with no meaning here
 * (mutex_*, rw_*, msgsize, getmajor, ...) return 0.
 */
#include "rt.h"

#define ARG(i)		(ms->tuple[i].val)
#define NARGS		(ms->ttop)
#define AF_INET		2
#define AF_INET6	10

static const char hexdigits[] = "0123456789abcdef";

/* Address and length of string argument i; -1 on fault. */
static int64_t sarg(struct rt_mstate *ms, uint32_t i, const char **s)
{
	uint64_t a = i < NARGS ? ARG(i) : 0;

	*s = (const char *)(uintptr_t)a;
	return rt_strlen(ms, a, ms->rt->strsize - 1);
}

static char *sout(struct rt_mstate *ms)
{
	return (char *)(uintptr_t)rt_alloc(ms, ms->rt->strsize);
}

static uint64_t strjoin(struct rt_mstate *ms)
{
	const char *a, *b;
	int64_t la = sarg(ms, 0, &a), lb = sarg(ms, 1, &b);
	uint64_t max = ms->rt->strsize - 1, j = 0;
	char *d;

	if (la < 0 || lb < 0 || !(d = sout(ms)))
		return 0;
	for (int64_t i = 0; i < la && j < max; i++)
		d[j++] = a[i];
	for (int64_t i = 0; i < lb && j < max; i++)
		d[j++] = b[i];
	d[j] = '\0';
	return (uint64_t)(uintptr_t)d;
}

static uint64_t substr(struct rt_mstate *ms)
{
	const char *s;
	int64_t len = sarg(ms, 0, &s), size = ms->rt->strsize - 1;
	int64_t index = (int64_t)ARG(1), remaining, i;
	char *d;

	if (len < 0 || !(d = sout(ms)))
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
static uint64_t strsearch(struct rt_mstate *ms, uint32_t subr)
{
	const char *s, *sub;
	int64_t len = sarg(ms, 0, &s), sublen = sarg(ms, 1, &sub);
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

static uint64_t strchr_(struct rt_mstate *ms, int last)
{
	const char *s;
	int64_t len = sarg(ms, 0, &s);
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

static uint64_t strtok(struct rt_mstate *ms)
{
	struct rt_cpu *c = ms->c;
	const char *tok;
	int64_t toklen = sarg(ms, 1, &tok), len;
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
	if (len < 0 || !(d = sout(ms)))
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

static uint64_t lltostr(struct rt_mstate *ms)
{
	int64_t v = (int64_t)ARG(0);
	uint64_t base = NARGS > 1 ? ARG(1) : 10, u;
	char *d = sout(ms), tmp[72];
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

static uint64_t pathname(struct rt_mstate *ms, uint32_t subr)
{
	const char *src;
	int64_t len = sarg(ms, 0, &src);
	int64_t i, j, lastbase = -1, firstbase = -1, lastdir = -1, start, end;
	char *d;

	if (len < 0 || !(d = sout(ms)))
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
static uint64_t cleanpath(struct rt_mstate *ms)
{
	const char *p;
	int64_t n = sarg(ms, 0, &p), r = 0, w = 0, dotdot = 0;
	int64_t max = (int64_t)ms->rt->strsize - 1;
	int rooted;
	char *d;

	if (n < 0 || !(d = sout(ms)))
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

static char *put_dec8(char *end, uint8_t v)
{
	if (v == 0)
		*end-- = '0';
	for (; v; v /= 10)
		*end-- = (char)('0' + v % 10);
	return end;
}

static uint64_t inet(struct rt_mstate *ms, uint32_t subr)
{
	int af = subr == MT_SUBR_INET_NTOP ? (int)ARG(0) :
		subr == MT_SUBR_INET_NTOA ? AF_INET : AF_INET6;
	uint64_t src = ARG(subr == MT_SUBR_INET_NTOP ? 1 : 0);
	uint8_t a[16];
	char *base, *end;

	if (af != AF_INET && af != AF_INET6) {
		rt_fault(ms, MT_FLT_ILLOP, (uint64_t)af);
		return 0;
	}
	if (rt_copy_in(ms, a, src, af == AF_INET ? 4 : 16) ||
	    !(base = (char *)(uintptr_t)rt_alloc(ms, 48)))
		return 0;
	end = base + 46 - 1;
	*end-- = '\0';
	if (af == AF_INET) {
		for (int i = 3; i >= 0; i--) {
			end = put_dec8(end, a[i]);
			if (i > 0)
				*end-- = '.';
		}
		return (uint64_t)(uintptr_t)(end + 1);
	}
	int firstzero = -1, tryzero = -1, numzero = 1, v6end = 14, i;
	for (i = 0; i < 16; i++) {
		if (a[i] == 0 && tryzero == -1 && i % 2 == 0) {
			tryzero = i;
			continue;
		}
		if (tryzero != -1 && (a[i] != 0 || i == 15)) {
			if (i - tryzero <= numzero) {
				tryzero = -1;
				continue;
			}
			firstzero = tryzero;
			numzero = i - i % 2 - tryzero;
			tryzero = -1;
			if (a[i] == 0 && i == 15)
				numzero += 2;
		}
	}
	int z10 = 1, z12 = 1;
	for (i = 0; i < 10; i++)
		z10 &= a[i] == 0;
	z12 = z10 && a[10] == 0 && a[11] == 0;
	uint32_t low = (uint32_t)a[12] << 24 | (uint32_t)a[13] << 16 |
		(uint32_t)a[14] << 8 | a[15];
	if ((z10 && a[10] == 0xff && a[11] == 0xff) || (z12 && low > 1)) {
		for (i = 15; i >= 12; i--) {
			end = put_dec8(end, a[i]);
			if (i > 12)
				*end-- = '.';
		}
		if (subr == MT_SUBR_INET_NTOA6)
			return (uint64_t)(uintptr_t)(end + 1);
		v6end = 10;
	}
	for (i = v6end; i >= 0; i -= 2) {
		uint16_t val;
		if (i == firstzero + numzero - 2) {
			*end-- = ':';
			*end-- = ':';
			i -= numzero - 2;
			continue;
		}
		if (i < 14 && i != firstzero - 2)
			*end-- = ':';
		val = (uint16_t)(a[i] << 8 | a[i + 1]);
		if (val == 0)
			*end-- = '0';
		for (; val; val /= 16)
			*end-- = hexdigits[val % 16];
	}
	return (uint64_t)(uintptr_t)(end + 1);
}

static uint64_t casemap(struct rt_mstate *ms, int upper)
{
	const char *s;
	int64_t len = sarg(ms, 0, &s);
	char *d;

	if (len < 0 || !(d = sout(ms)))
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

static uint64_t strtoll(struct rt_mstate *ms)
{
	const char *s;
	int64_t len = sarg(ms, 0, &s), i = 0;
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

static uint64_t rnd(struct rt_mstate *ms)
{
	uint64_t x = ms->c->rand;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	ms->c->rand = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

static uint64_t copyin(struct rt_mstate *ms, uint32_t subr)
{
	uint64_t src = ARG(0), n, d;

	if (subr == MT_SUBR_COPYINSTR) {
		n = ms->rt->strsize;
		if (NARGS > 1 && ARG(1) < n)
			n = ARG(1) + 1;
		if (!(d = rt_alloc(ms, n)))
			return 0;
		int64_t len = rt_strlen(ms, src, n - 1);
		if (len >= 0)
			rt_memcpy((void *)(uintptr_t)d,
				  (const void *)(uintptr_t)src, (uint64_t)len);
		return d;
	}
	n = ARG(1);
	if (!(d = rt_alloc(ms, n)))
		return 0;
	rt_copy_in(ms, (void *)(uintptr_t)d, src, n);
	return d;
}

static uint64_t strcmp_(struct rt_mstate *ms)
{
	const char *a, *b;
	int64_t la = sarg(ms, 0, &a), lb = sarg(ms, 1, &b);

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

/* bcopy(src, dst, n): dst must be allocated scratch; a copy running past
   the end of an alloca'd source or destination is an invalid size. */
static void bcopy(struct rt_mstate *ms)
{
	uint64_t src = ARG(0), dst = ARG(1), n = ARG(2);
	uint64_t s = (uint64_t)(uintptr_t)ms->c->scratch;

	if (dst >= s && dst - s < ms->scratch_used &&
	    n > ms->scratch_used - (dst - s)) {
		rt_fault(ms, MT_FLT_BADSIZE, n);
		return;
	}
	if (src >= s && src - s < ms->scratch_used &&
	    n > ms->scratch_used - (src - s)) {
		rt_fault(ms, MT_FLT_BADSIZE, n);
		return;
	}
	if (rt_check_store(ms, dst, n, 0) == 0)
		rt_copy_in(ms, (void *)(uintptr_t)dst, src, n);
}

static uint64_t bswap(uint64_t v, int bytes)
{
	uint64_t r = 0;

	for (int i = 0; i < bytes; i++)
		r = (r << 8) | ((v >> (8 * i)) & 0xff);
	return r;
}

void rt_subr(struct rt_mstate *ms, uint32_t subr, uint64_t *rd)
{
	uint64_t r = 0;

	switch (subr) {
	case MT_SUBR_RAND: r = rnd(ms); break;
	case MT_SUBR_SPECULATION: r = rt_speculation(ms); break;
	case MT_SUBR_PROGENYOF:
		r = ARG(0) == mt_plat_var(ms->ctx, MT_VAR_PID) ||
			ARG(0) == mt_plat_var(ms->ctx, MT_VAR_PPID);
		break;
	case MT_SUBR_STRLEN: {
		const char *s;
		int64_t l = sarg(ms, 0, &s);
		r = l < 0 ? 0 : (uint64_t)l;
		break;
	}
	case MT_SUBR_STRJOIN: r = strjoin(ms); break;
	case MT_SUBR_SUBSTR: r = substr(ms); break;
	case MT_SUBR_STRSTR: case MT_SUBR_INDEX: case MT_SUBR_RINDEX:
		r = strsearch(ms, subr);
		break;
	case MT_SUBR_STRCHR: r = strchr_(ms, 0); break;
	case MT_SUBR_STRRCHR: r = strchr_(ms, 1); break;
	case MT_SUBR_STRTOK: r = strtok(ms); break;
	case MT_SUBR_LLTOSTR: r = lltostr(ms); break;
	case MT_SUBR_BASENAME: case MT_SUBR_DIRNAME:
		r = pathname(ms, subr);
		break;
	case MT_SUBR_CLEANPATH: r = cleanpath(ms); break;
	case MT_SUBR_HTONS: case MT_SUBR_NTOHS: r = bswap(ARG(0), 2); break;
	case MT_SUBR_HTONL: case MT_SUBR_NTOHL: r = bswap(ARG(0), 4); break;
	case MT_SUBR_HTONLL: case MT_SUBR_NTOHLL: r = bswap(ARG(0), 8); break;
	case MT_SUBR_INET_NTOP: case MT_SUBR_INET_NTOA:
	case MT_SUBR_INET_NTOA6:
		r = inet(ms, subr);
		break;
	case MT_SUBR_TOUPPER: r = casemap(ms, 1); break;
	case MT_SUBR_TOLOWER: r = casemap(ms, 0); break;
	case MT_SUBR_STRTOLL: r = strtoll(ms); break;
	case MT_SUBR_STRCMP: r = strcmp_(ms); break;
	case MT_SUBR_ALLOCA: r = rt_alloca(ms, ARG(0)); break;
	case MT_SUBR_BCOPY: bcopy(ms); break;
	case MT_SUBR_COPYINTO:
		if (rt_check_store(ms, ARG(2), ARG(1), 0) == 0)
			rt_copy_in(ms, (void *)(uintptr_t)ARG(2), ARG(0), ARG(1));
		break;
	case MT_SUBR_COPYIN: case MT_SUBR_COPYINSTR:
		r = copyin(ms, subr);
		break;
	default:
		break;
	}
	*rd = r;
}
