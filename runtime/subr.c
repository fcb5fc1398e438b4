/*
 * D subroutines (CALL), probe context.  Semantics follow illumos and
 * dtrace-utils dtrace_dif_subr, edge cases included.  Arguments are the
 * tuple stack entries; string results go to scratch (strsize bytes, at most
 * strsize - 1 characters).  Kernel-only subroutines with no meaning here
 * (mutex_*, rw_*, msgsize, getmajor, d_path, ...) return 0.
 */
#include "rt.h"

#define ARG(i)		((uint32_t)(i) < ms->ttop ? ms->tuple[i].val : 0)
#define NARGS		(ms->ttop)
#define AF_INET		2
#define AF_INET6	10

static const char hexdigits[] = "0123456789abcdef";

static char *put_dec8(char *end, uint8_t v)
{
	if (v == 0)
		*end-- = '0';
	for (; v; v /= 10)
		*end-- = (char)('0' + v % 10);
	return end;
}

/*
 * link_ntop(type, addr): a hardware address as lower-case hex bytes joined
 * by ':', 6 bytes for ARPHRD_ETHER (1), 20 for ARPHRD_INFINIBAND (32);
 * another type is an illegal operation, as in dtrace.
 */
static uint64_t link_ntop(struct rt_mstate *ms)
{
	int type = (int)ARG(0);
	uint32_t len = type == 1 ? 6 : type == 32 ? 20 : 0;
	uint8_t a[20];
	char *p;

	if (len == 0) {
		rt_fault(ms, MT_FLT_ILLOP, (uint64_t)type);
		return 0;
	}
	if (rt_copy_in(ms, a, ARG(1), len) ||
	    !(p = (char *)(uintptr_t)rt_alloc(ms, len * 3)))
		return 0;
	for (uint32_t i = 0; i < len; i++) {
		p[3 * i] = hexdigits[a[i] >> 4];
		p[3 * i + 1] = hexdigits[a[i] & 15];
		p[3 * i + 2] = i + 1 < len ? ':' : '\0';
	}
	return (uint64_t)(uintptr_t)p;
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
		rt_copy_ustr(ms, (char *)(uintptr_t)d, src, n);
		return d;
	}
	n = ARG(1);
	if (!(d = rt_alloc(ms, n)))
		return 0;
	rt_copy_user(ms, (void *)(uintptr_t)d, src, n);
	return d;
}

/*
 * A string read through an alloca()'d pointer, as dtrace-utils bounds it
 * (dt_cg_alloca_access_check with the string type's size): the pointer
 * must be in the scratch allocated so far and strsize bytes from it must
 * be allocated too, whether or not a NUL comes first.
 */
static uint64_t alloca_str(struct rt_mstate *ms, uint64_t p)
{
	uint64_t s = (uint64_t)(uintptr_t)ms->c->scratch;
	uint64_t len = ms->rt->strsize - 1;	/* D's strsize, no NUL */

	if (p < s || p - s >= ms->scratch_used)
		rt_fault(ms, MT_FLT_BADADDR, p);
	else if (len > ms->scratch_used - (p - s))
		rt_fault(ms, MT_FLT_BADSIZE, len);
	return p;
}

/* bcopy(src, dst, n): dst must be allocated scratch; a copy running past
   the end of an alloca'd source or destination is an invalid size. */
static void subr_bcopy(struct rt_mstate *ms)
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
		int64_t l = rt_sarg(ms, 0, &s);
		r = l < 0 ? 0 : (uint64_t)l;
		break;
	}
	case MT_SUBR_STRJOIN: r = rt_strjoin(ms); break;
	case MT_SUBR_SUBSTR: r = rt_substr(ms); break;
	case MT_SUBR_STRSTR: case MT_SUBR_INDEX: case MT_SUBR_RINDEX:
		r = rt_strsearch(ms, subr);
		break;
	case MT_SUBR_STRCHR: r = rt_strchr(ms, 0); break;
	case MT_SUBR_STRRCHR: r = rt_strchr(ms, 1); break;
	case MT_SUBR_STRTOK: r = rt_strtok(ms); break;
	case MT_SUBR_LLTOSTR: r = rt_lltostr(ms); break;
	case MT_SUBR_BASENAME: case MT_SUBR_DIRNAME:
		r = rt_pathname(ms, subr);
		break;
	case MT_SUBR_CLEANPATH: r = rt_cleanpath(ms); break;
	case MT_SUBR_HTONS: case MT_SUBR_NTOHS: r = bswap(ARG(0), 2); break;
	case MT_SUBR_HTONL: case MT_SUBR_NTOHL: r = bswap(ARG(0), 4); break;
	case MT_SUBR_HTONLL: case MT_SUBR_NTOHLL: r = bswap(ARG(0), 8); break;
	case MT_SUBR_INET_NTOP: case MT_SUBR_INET_NTOA:
	case MT_SUBR_INET_NTOA6:
		r = inet(ms, subr);
		break;
	case MT_SUBR_LINK_NTOP: r = link_ntop(ms); break;
	case MT_SUBR_TOUPPER: r = rt_casemap(ms, 1); break;
	case MT_SUBR_TOLOWER: r = rt_casemap(ms, 0); break;
	case MT_SUBR_STRTOLL: r = rt_strtoll(ms); break;
	case MT_SUBR_STRCMP: r = rt_strcmp(ms); break;
	case MT_SUBR_ARRIDX:	/* (index, nelems): the index, if below nelems */
		r = ARG(0);
		if (r >= ARG(1))
			rt_fault(ms, MT_FLT_BADINDEX, r);
		break;
	case MT_SUBR_MACH_MSGNAME:	/* the id is a mach_msg_id_t */
		r = rt_msgname(ms, (int32_t)ARG(0), 0);
		break;
	case MT_SUBR_MACH_MSGSUBSYSTEM:
		r = rt_msgname(ms, (int32_t)ARG(0), 1);
		break;
	case MT_SUBR_MACH_PID: case MT_SUBR_MACH_TID:
		r = (uint64_t)mt_plat_objid(ms->ctx, subr == MT_SUBR_MACH_TID,
					    ARG(0));
		break;
	case MT_SUBR_MACH_EXECNAME:
		if ((r = rt_alloc(ms, ms->rt->strsize)) != 0)
			mt_plat_objname(ms->ctx, ARG(0), (char *)(uintptr_t)r,
					ms->rt->strsize);
		break;
	case MT_SUBR_ALLOCA: r = rt_alloca(ms, ARG(0)); break;
	case MT_SUBR_ALLOCASTR: r = alloca_str(ms, ARG(0)); break;
	case MT_SUBR_BCOPY: subr_bcopy(ms); break;
	case MT_SUBR_COPYINTO:
		if (rt_check_store(ms, ARG(2), ARG(1), 0) == 0)
			rt_copy_user(ms, (void *)(uintptr_t)ARG(2), ARG(0), ARG(1));
		break;
	case MT_SUBR_COPYIN: case MT_SUBR_COPYINSTR:
		r = copyin(ms, subr);
		break;
	default:
		break;
	}
	*rd = r;
}
