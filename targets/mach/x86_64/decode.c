/*
 * Kernel image reader, x86-64 decoding (Capstone): for every function,
 * whether its entry can take a 5-byte "jmp rel32" to a trampoline, only an
 * int3, or nothing, and where its return instructions are.
 *
 * A jmp displaces the whole instructions covering the first 5 bytes; they
 * are executed elsewhere afterwards, so they must not depend on where they
 * run (no rip-relative operand, no relative branch or call, no ret/int) and
 * no branch anywhere in the kernel may land inside them (past the entry).
 * Otherwise the entry takes an int3 (one byte, nothing displaced for the
 * trap itself) as long as the first instruction decodes.  Functions are
 * refused when a probe could break the tracer or the kernel: code without
 * a DWARF subprogram (assembly entry points: traps, interrupts, context
 * switch), the kernel debugger, and the trap path a probe itself takes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/image/kimg_int.h"
#include "targets/mach/mach_int.h"
#include "targets/mach/x86_64/insn.h"

#define JMP_LEN 5

static const char *const denied_prefixes[][2] = {
	{ "db_", "kernel debugger (KDB)" },
	{ "kdb_", "kernel debugger (KDB)" },
};

static const char *const denied_names[][2] = {
	{ "kernel_trap", "trap path taken by int3 probes" },
	{ "user_trap", "trap path taken by int3 probes" },
	{ "i386_exception", "trap path taken by int3 probes" },
	{ "Debugger", "kernel debugger (KDB)" },
	{ "panic", "panic path (must stay usable)" },
};

void kimg_targets_add(struct kimg_targets *t, uint64_t a)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 65536;
		uint64_t *p = cap > SIZE_MAX / 2 / sizeof *p ? NULL :
			(t->xrealloc ? t->xrealloc : realloc)(t->v, cap * sizeof *p);
		if (!p) {
			t->lost = 1;	/* fail closed: see kimg_targets_apply */
			return;
		}
		t->v = p;
		t->cap = cap;
	}
	t->v[t->n++] = a;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static const char *denied(const char *name)
{
	for (size_t i = 0; i < sizeof denied_prefixes / sizeof *denied_prefixes; i++)
		if (strncmp(name, denied_prefixes[i][0], strlen(denied_prefixes[i][0])) == 0)
			return denied_prefixes[i][1];
	for (size_t i = 0; i < sizeof denied_names / sizeof *denied_names; i++)
		if (strcmp(name, denied_names[i][0]) == 0)
			return denied_names[i][1];
	return NULL;
}

/* Decodes one function: entry analysis, returns, branch targets. */
static void decode_func(struct mt_kimg *k, csh cs, cs_insn *in, struct mt_kfunc *f,
			struct kimg_targets *t, uint32_t *rets)
{
	const uint8_t *code = mt_kimg_bytes(k, f->addr, f->size);
	const char *no_jmp = NULL;
	uint64_t addr = f->addr;
	size_t left = f->size;
	unsigned nrets = 0;

	if (!code) {
		f->patch = MT_PATCH_REFUSED;
		f->why = "no bytes in the image";
		return;
	}
	while (left && cs_disasm_iter(cs, &code, &left, &addr, in)) {
		uint32_t off = (uint32_t)(in->address - f->addr);
		uint64_t tgt = x86_branch_target(in);
		if (tgt)
			kimg_targets_add(t, tgt);
		if (x86_in_group(in, CS_GRP_RET))
			rets[nrets++] = off;
		if (off == 0)
			f->first_len = in->size;
		if (off < JMP_LEN) {
			if (!no_jmp && x86_is_branch(in))
				no_jmp = "branch, call or ret in the first 5 bytes";
			else if (!no_jmp && x86_rip_relative(in))
				no_jmp = "rip-relative operand in the first 5 bytes";
			f->displaced = off + in->size;
		}
	}
	if (left) {
		f->patch = MT_PATCH_REFUSED;
		f->why = kimg_strdup(k, "undecodable instruction in the body");
		return;
	}
	if (f->displaced < JMP_LEN && !no_jmp)
		no_jmp = "function shorter than a 5-byte jmp";
	f->nrets = nrets;
	if (nrets) {
		uint32_t *r = kimg_alloc(k, nrets * sizeof *r);
		if (r)
			memcpy(r, rets, nrets * sizeof *r);
		f->rets = r;
	}
	if (no_jmp) {
		f->patch = MT_PATCH_INT3;
		f->why = no_jmp;
		f->displaced = 0;
	}
}

static int targets_inside(const struct kimg_targets *t, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = t->n;

	while (a < b) {                 /* first target > lo */
		size_t m = (a + b) / 2;
		if (t->v[m] <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a < t->n && t->v[a] < hi;
}

static void refuse_unsafe(struct mt_kimg *k, struct mt_kfunc *f)
{
	const char *why = denied(f->name);

	if (f->patch == MT_PATCH_REFUSED)
		return;
	if (f->inline_only && !why) {
		f->patch = MT_PATCH_INT3;
		f->why = "inline function: probed at its inline sites";
		return;
	}
	if (!f->size)
		why = "symbol without a size";
	else if (k->dw && !f->has_dwarf)
		why = "no DWARF subprogram (assembly routine)";
	if (why) {
		f->patch = MT_PATCH_REFUSED;
		f->why = why;
	}
}

void kimg_targets_apply(struct mt_kimg *k, struct kimg_targets *t)
{
	if (t->n)
		qsort(t->v, t->n, sizeof *t->v, cmp_u64);
	for (size_t i = 0; i < k->nfuncs; i++) {
		struct mt_kfunc *f = &k->funcs[i];
		if (f->patch != MT_PATCH_JMP)
			continue;
		if (t->lost)
			f->why = "branch targets unknown (out of memory)";
		else if (targets_inside(t, f->addr, f->addr + f->displaced))
			f->why = "a branch targets the displaced bytes";
		else
			continue;
		f->patch = MT_PATCH_INT3;
		f->displaced = 0;
	}
}

int kimg_decode(struct mt_kimg *k, char *err, size_t errlen)
{
	struct kimg_targets t = { 0 };
	uint64_t maxsize = 0;
	uint32_t *rets;
	cs_insn *in;
	csh cs;

	if (x86_open(&cs) < 0) {
		mt_seterr(err, errlen, "capstone: cannot open the x86-64 decoder");
		return -1;
	}
	in = cs_malloc(cs);
	for (size_t i = 0; i < k->nfuncs; i++)
		if (k->funcs[i].size > maxsize)
			maxsize = k->funcs[i].size;
	rets = malloc((maxsize + 1) * sizeof *rets);
	if (!in || !rets) {
		mt_seterr(err, errlen, "out of memory");
		cs_free(in, 1);
		cs_close(&cs);
		free(rets);
		return -1;
	}
	for (size_t i = 0; i < k->nfuncs; i++) {
		struct mt_kfunc *f = &k->funcs[i];
		if (f->patch != MT_PATCH_REFUSED && f->size && !f->inline_only)
			decode_func(k, cs, in, f, &t, rets);
	}
	for (size_t i = 0; i < k->nfuncs; i++)
		refuse_unsafe(k, &k->funcs[i]);
	kimg_targets_apply(k, &t);
	free(rets);
	free(t.v);
	cs_free(in, 1);
	cs_close(&cs);
	return 0;
}
