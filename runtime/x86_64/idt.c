/*
 * Vector 3 in every CPU's IDT (GNU Mach keeps one per CPU): the boot
 * CPU's `idt`, each started CPU's mp_desc_table entry, and idt_inittab,
 * from which a CPU started while tracing fills its IDT, so that it gets
 * lk_int3 too.  Unhooking restores each of them by address, whichever
 * CPU stops tracing, and any IDT filled from the hooked table meanwhile.
 * Called at INIT and STOP (not in probe context).
 */
#include "runtime/kernel/kern.h"

uint64_t lk_orig_int3;
extern char lk_int3[];

struct idtr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

/* The IDTs hooked, their gates' type before, and idt_inittab's entry. */
static volatile uint32_t *hooked[LK_NCPU_MAX + 1];
static uint32_t nhooked, orig_type;
static volatile uint64_t *iie_entry;
static volatile uint16_t *iie_type;
static uint16_t iie_type0;

static volatile uint32_t *this_cpu_gate(uint32_t vec)
{
	struct idtr r;

	__asm__ volatile("sidt %0" : "=m"(r));
	return vec * 16 + 15 <= r.limit ? (volatile uint32_t *)(r.base + vec * 16) : 0;
}

static uint64_t handler(volatile uint32_t *g)
{
	return (g[0] & 0xffff) | (g[1] & 0xffff0000u) | ((uint64_t)g[2] << 32);
}

static void set_gate(volatile uint32_t *g, uint64_t h, uint32_t type)
{
	uint64_t fl = lk_save_cli();

	g[0] = (g[0] & 0xffff0000u) | (uint32_t)(h & 0xffff);
	g[1] = (uint32_t)(h & 0xffff0000u) | (type << 8) | (g[1] & 0xff);
	g[2] = (uint32_t)(h >> 32);
	lk_restore(fl);
}

/* CPU cpu's gate of vector vec (cpu > 0: from mp_desc_table), 0: none yet. */
static volatile uint32_t *gate_of(const struct lk_kdesc *k, uint32_t cpu, uint32_t vec)
{
	uint64_t mp;

	if (cpu == 0)
		return k->idt ? (volatile uint32_t *)(k->idt + vec * 16) : this_cpu_gate(vec);
	if (!k->mp_desc_table || cpu >= k->ncpus || cpu >= LK_NCPU_MAX)
		return 0;
	mp = ((volatile uint64_t *)k->mp_desc_table)[cpu];
	return mp ? (volatile uint32_t *)(mp + k->off_mpdesc_idt + vec * 16) : 0;
}

static volatile uint32_t *gate3(const struct lk_kdesc *k, uint32_t cpu)
{
	return gate_of(k, cpu, 3);
}

/* idt_inittab's vector 3 entry -> lk_int3 as an interrupt gate. */
static void hook_inittab(const struct lk_kdesc *k)
{
	uint64_t e = k->idt_inittab;

	for (int i = 0; e && k->iie_size && i < 256; i++, e += k->iie_size) {
		volatile uint64_t *ep = (volatile uint64_t *)e;

		if (*ep == 0)
			return;
		if (*(volatile uint16_t *)(e + k->iie_off_vector) != 3 || *ep != lk_orig_int3)
			continue;
		iie_type = (volatile uint16_t *)(e + k->iie_off_type);
		iie_type0 = *iie_type;
		*iie_type = iie_type0 & ~1u;	/* a trap gate -> an interrupt gate */
		iie_entry = ep;
		*ep = (uint64_t)lk_int3;
		return;
	}
}

/* Vector 3 -> lk_int3 as a DPL3 interrupt gate (IF cleared on entry). */
int lk_idt_hook(void)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	volatile uint32_t *g = gate3(k, 0);

	if (nhooked)
		return 0;
	lk_orig_int3 = handler(g);
	orig_type = (g[1] >> 8) & 0xff;
	if (!(orig_type & 0x80))
		return -1;
	for (uint32_t cpu = 0; cpu < LK_NCPU_MAX && nhooked <= LK_NCPU_MAX; cpu++)
		if ((g = gate3(k, cpu)) && handler(g) == lk_orig_int3) {
			set_gate(g, (uint64_t)lk_int3, 0xee);
			hooked[nhooked++] = g;
		}
	hook_inittab(k);
	return 0;
}

void lk_idt_unhook(void)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	volatile uint32_t *g;

	if (!nhooked)
		return;
	if (iie_entry) {
		*iie_entry = lk_orig_int3;
		*iie_type = iie_type0;
		iie_entry = 0;
	}
	for (uint32_t i = 0; i < nhooked; i++)
		set_gate(hooked[i], lk_orig_int3, orig_type);
	for (uint32_t cpu = 1; cpu < LK_NCPU_MAX; cpu++)
		if ((g = gate3(k, cpu)) && handler(g) == (uint64_t)lk_int3)
			set_gate(g, lk_orig_int3, orig_type);
	nhooked = 0;		/* lk_orig_int3 stays valid for a late trap */
}

/*
 * The blob's own vectors (apic.c's timer, xcall.c's cross-calls): each
 * the highest one below the spurious vector that no started CPU's IDT
 * has present, made an interrupt gate (DPL 0) to its handler in each of
 * them.  Each CPU's entry as the kernel had it is given back by
 * lk_idt_give.
 */
static struct owned {
	uint32_t vec, n;
	volatile uint32_t *g[LK_NCPU_MAX];
	uint32_t old[LK_NCPU_MAX][4];
} own[2];

static int vec_free(const struct lk_kdesc *k, uint32_t vec)
{
	volatile uint32_t *g;

	for (uint32_t cpu = 0; cpu < LK_NCPU_MAX; cpu++)
		if ((g = gate_of(k, cpu, vec)) && (g[1] & 0x8000))
			return 0;
	return gate_of(k, 0, vec) != 0;
}

uint32_t lk_idt_take(uint64_t h)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	struct owned *o = own[0].vec ? &own[1] : &own[0];
	volatile uint32_t *g;
	uint32_t v;
	uint16_t cs;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	for (v = 0xfe; v >= 0x30 && !vec_free(k, v); v--)
		;
	if (v < 0x30 || o->vec)
		return 0;
	o->vec = v;
	o->n = 0;
	for (uint32_t cpu = 0; cpu < LK_NCPU_MAX; cpu++) {
		if (!(g = gate_of(k, cpu, v)))
			continue;
		o->g[o->n] = g;
		for (int i = 0; i < 4; i++)
			o->old[o->n][i] = g[i];
		o->n++;
		g[0] = ((uint32_t)cs << 16) | (uint32_t)(h & 0xffff);
		g[2] = (uint32_t)(h >> 32);
		g[3] = 0;
		g[1] = (uint32_t)(h & 0xffff0000u) | 0x8e00;	/* present, DPL 0,
								   interrupt gate */
	}
	return v;
}

void lk_idt_give(uint32_t vec)
{
	for (int j = 0; j < 2; j++) {
		struct owned *o = &own[j];

		if (!vec || o->vec != vec)
			continue;
		for (uint32_t i = 0; i < o->n; i++) {
			o->g[i][1] = o->old[i][1];
			o->g[i][0] = o->old[i][0];
			o->g[i][2] = o->old[i][2];
			o->g[i][3] = o->old[i][3];
		}
		o->n = o->vec = 0;
	}
}
