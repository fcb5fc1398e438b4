/*
 * Compiled probes on the local target (jit/, JIT_SITE_LOCAL): each probe
 * with clauses is compiled at attach, unless MACHTRACE_NOJIT is set, and
 * fired through its code; the interpreter (mt_rt_probe) runs a probe the
 * compiler does not translate and any firing the code's guards refuse.
 *
 * The code names the runtime's state by absolute 32-bit addresses, as in
 * the kernel's top 2 GiB: the state area is mapped below 2 GiB
 * (MAP_32BIT) and a probe is compiled only when every address it names
 * fits.  Its calls to the runtime's helpers are rel32: they go to a
 * veneer table (jmp *0(%rip); .quad helper) at the start of the code's
 * own mapping, written RW, then made RX.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "jit/jit.h"
#include "machtrace/jitabi.h"
#include "machtrace/runtime.h"
#include "targets/local/local.h"

#define VENEER		16
#define CODE_ALIGN	16
#define LOW_LIMIT	0x80000000ull

typedef int (*local_fn)(const uint64_t *args);

struct local_jit {
	uint8_t *map;
	size_t len;
	uint32_t nprobes;
	local_fn fn[];			/* per probe index, NULL: interpreted */
};

void *mt_local_area_alloc(uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);

	if (p == MAP_FAILED)
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void mt_local_area_free(void *area, uint64_t size)
{
	if (area)
		munmap(area, size);
}

static const char *area_reason(const void *area, uint64_t size)
{
	if ((uint64_t)(uintptr_t)area + size > LOW_LIMIT)
		return "the runtime's state is not below 2 GiB (MAP_32BIT)";
	return NULL;
}

/* Relocation r of code at va: its 4-byte value, 0 if it has none. */
static int rel_value(struct mt_cb *cb, const uint8_t *veneers, const struct jit_rel *r,
		     uint64_t va, int32_t *out)
{
	uint64_t v;

	if (r->kind == MT_JR_HELPER) {
		if (r->arg >= MT_JH__COUNT)
			return 0;
		v = (uint64_t)(uintptr_t)(veneers + VENEER * r->arg);
	} else if (r->kind < MT_JR_PLAT_TSCMULT) {	/* no platform's on the host */
		v = mt_rt_jit_addr(cb, r->kind, r->arg, 0);
	} else {
		return 0;
	}
	/* an absolute address must be below 2 GiB here, where a negative
	   32-bit one would sign-extend to the top of the address space */
	return (v || mt_jit_rel_zero_ok(r->kind)) &&
	       mt_jit_rel_encode(r->kind, v, r->addend, va + r->at + 4, out) &&
	       (r->kind == MT_JR_HELPER || *out >= 0);
}

static void veneers(struct mt_cb *cb, uint8_t *at)
{
	static const uint8_t jmp[6] = { 0xff, 0x25, 0, 0, 0, 0 };	/* jmp *0(%rip) */

	for (uint32_t h = 0; h < MT_JH__COUNT; h++) {
		uint64_t fn = mt_rt_jit_addr(cb, MT_JR_HELPER, h, 0);
		memset(at + VENEER * h, 0xcc, VENEER);
		memcpy(at + VENEER * h, jmp, sizeof jmp);
		memcpy(at + VENEER * h + sizeof jmp, &fn, 8);
	}
}

/* Copy c to at and resolve it; 0, or -1 when a relocation does not fit. */
static int place(struct mt_cb *cb, const uint8_t *ven, uint8_t *at, const struct jit_code *c)
{
	memcpy(at, c->b.code, c->b.len);
	for (uint32_t i = 0; i < c->b.nrel; i++) {
		const struct jit_rel *r = &c->b.rel[i];
		int32_t v;
		if (r->at + 4 > c->b.len || !rel_value(cb, ven, r, (uint64_t)(uintptr_t)at, &v))
			return -1;
		memcpy(at + r->at, &v, 4);
	}
	return 0;
}

static size_t code_size(struct jit_code **codes, uint32_t n)
{
	size_t len = VENEER * MT_JH__COUNT;

	for (uint32_t i = 0; i < n; i++)
		if (codes[i])
			len += (codes[i]->b.len + CODE_ALIGN - 1) & ~(size_t)(CODE_ALIGN - 1);
	return len;
}

/* Map the codes with their veneers; a probe whose relocations do not
   resolve stays interpreted. */
static int map_codes(struct local_jit *lj, struct mt_cb *cb, struct jit_code **codes)
{
	size_t off = VENEER * MT_JH__COUNT;

	lj->len = code_size(codes, lj->nprobes);
	lj->map = mmap(NULL, lj->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (lj->map == MAP_FAILED) {
		lj->map = NULL;
		return -1;
	}
	veneers(cb, lj->map);
	for (uint32_t pi = 0; pi < lj->nprobes; pi++) {
		if (!codes[pi])
			continue;
		if (place(cb, lj->map, lj->map + off, codes[pi]) == 0)
			lj->fn[pi] = (local_fn)(void *)(lj->map + off);
		else if (getenv("MACHTRACE_JIT_SHOW"))
			fprintf(stderr, "machtrace: probe %u: a relocation does not fit: "
				"interpreted\n", pi);
		off += (codes[pi]->b.len + CODE_ALIGN - 1) & ~(size_t)(CODE_ALIGN - 1);
	}
	return mprotect(lj->map, lj->len, PROT_READ | PROT_EXEC);
}

static void free_codes(struct jit_code **codes, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (codes[i]) {
			mt_jit_free(codes[i]);
			free(codes[i]);
		}
	free(codes);
}

struct local_jit *mt_local_jit_new(struct mt_cb *cb, const struct mt_image *img, uint64_t size)
{
	const struct mt_probe *pr = (const void *)((const uint8_t *)img + img->probes_off);
	struct jit_opts o = { .site = JIT_SITE_LOCAL };
	const char *nojit = area_reason(cb, size);
	struct local_jit *lj = calloc(1, sizeof *lj + img->nprobes * sizeof(local_fn));
	struct jit_code **codes = calloc(img->nprobes ? img->nprobes : 1, sizeof *codes);
	uint32_t n = 0;

	if (!lj || !codes) {
		free(lj);
		free(codes);
		return NULL;
	}
	lj->nprobes = img->nprobes;
	for (uint32_t pi = 0; pi < img->nprobes; pi++)
		if (pr[pi].necbs && (codes[pi] = mt_jit_plan(img, pi, &o, 0, nojit)))
			n++;
	if (n && map_codes(lj, cb, codes) != 0) {
		fprintf(stderr, "machtrace: cannot map compiled probes: interpreted\n");
		mt_local_jit_free(lj);
		lj = NULL;
	}
	free_codes(codes, img->nprobes);
	return lj;
}

int mt_local_jit_fire(const struct local_jit *lj, uint32_t pi, const uint64_t *args)
{
	if (!lj || pi >= lj->nprobes || !lj->fn[pi])
		return 1;
	return lj->fn[pi](args);
}

void mt_local_jit_free(struct local_jit *lj)
{
	if (!lj)
		return;
	if (lj->map)
		munmap(lj->map, lj->len);
	free(lj);
}
