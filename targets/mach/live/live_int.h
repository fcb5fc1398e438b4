/* Internals of the live GNU Mach target (targets/mach/live/). */
#ifndef TARGET_LIVE_INT_H
#define TARGET_LIVE_INT_H

#include "jit/jit.h"
#include <stddef.h>
#include <stdint.h>
#include "targets/mach/x86_64/insn.h"
#include "machtrace/kimg.h"
#include "machtrace/live.h"
#include "machtrace/mach.h"
#include "machtrace/lkabi.h"
#include "machtrace/vm.h"
#include "targets/mach/live/sdt.h"
#include "targets/mach/live/umod.h"

/* A site request before sorting and merging (one per probe or hook). */
struct site_req {
	uint64_t addr;
	const struct mt_kfunc *f;
	uint32_t kind;			/* LK_SK_* */
	uint32_t flags;			/* LK_SF_* */
	uint32_t probe;			/* image probe index when LK_SF_FIRE */
	uint32_t func_off;		/* RET */
	uint32_t fast_aggid;		/* LK_SF_FAST */
	uint32_t range;			/* LK_SK_JMPRET: bytes from addr through the ret */
	uint64_t ret_at;		/* LK_SK_JMPRET: address of the ret */
	uint8_t argreg[LK_SITE_NREGARGS];	/* LK_SF_REGARGS (lkabi.h) */
	uint64_t cnt_addr;		/* LK_SF_COUNTER */
	int32_t cnt_inc;		/* LK_SF_COUNTER */
	const struct lk_uarg *uargs;	/* LK_SF_UARGS: nuargs operands */
	uint8_t nuargs;
	struct jit_code *jit;		/* LK_SF_JIT: the probe's code (owned) */
	uint8_t jit_all;		/* jit fires every probe at addr too */
	uint8_t noargs;			/* its probe has no args[] (kinst::F:OFF,
					   line, kinst::F:return): it takes
					   the site's other probes' arguments */
};

/* Sites and trampolines as they will be written into the region. */
struct site_set {
	struct site_req *req;
	size_t nreq, capreq;
	struct lk_site *sites;
	uint32_t nsites;
	uint8_t *tramp;			/* LK_TRAMP_MAX bytes */
	uint64_t tramp_used;
	uint64_t tramp_va;		/* kernel VA of the trampoline area */
	uint64_t fbt_entry_va;		/* LK_VEC_FBT_ENTRY in the blob */
	uint64_t fbt_ret_va;		/* LK_VEC_FBT_RET in the blob */
	uint64_t jit_dispatch_va;	/* LK_VEC_JIT_DISPATCH in the blob */
	uint32_t ncopy;			/* the guest's CPUs: copies of each
					   compiled probe (lkabi.h, lk_jit) */
	uint64_t *targets;		/* sorted possible branch targets in the */
	size_t ntargets;		/* kernel text (sites_ret_range), lazily */
	int targets_done;
	uint32_t *nofit;		/* sites whose compiled code did not fit */
	uint32_t nnofit;		/* the trampoline area: interpreted */
};

int sites_add(struct site_set *s, const struct site_req *r);
/* Requests by address, then a ret before an entry, then by probe: the
   order sites_build merges them in (a site's probe, probe2, extras). */
void sites_sort(struct site_set *s);
/* planjit.c: r's compiled code (LK_SF_JIT) for a jmp site of that kind;
   one code for the probes sharing a jmp site (before sites_build); after
   it, -S and MACHTRACE_JIT_STATS name the probes the interpreter runs
   (code that did not fit, int3 sites, sites a hook shares). */
struct live;
void plan_jit(const struct live *l, struct site_req *r, const struct mt_image *img,
	      enum jit_site site);
void combine_shared(struct site_set *s, const struct mt_image *img);
void report_nofit(const struct live *l, const struct mt_image *img);
void report_unplanned(const struct live *l, const struct mt_image *img);
/* Sort, merge, and build every site and trampoline; -1 with err. */
int sites_build(struct site_set *s, struct mt_kimg *k, char *err, size_t errlen);
void sites_free(struct site_set *s);
/*
 * Can the ret at f->addr + ret_off take a jmp?  Returns the bytes of the
 * range to displace (>= 5: position-independent instructions ending with
 * the ret, nothing branching into them, clear of f's entry site) with its
 * start in *start, or 0 (the ret takes an int3).
 */
/* Bytes a jmp at f's entry displaces (relocated if need be), 0: int3. */
unsigned sites_entry_range(struct site_set *s, struct mt_kimg *k, const struct mt_kfunc *f);
/* The same for a jmp at instruction addr inside f (an SDT site). */
unsigned sites_insn_range(struct site_set *s, struct mt_kimg *k, const struct mt_kfunc *f,
			  uint64_t addr);
/* Offsets of f's instructions (at most max); -1 if undecodable. */
int sites_insn_offsets(struct mt_kimg *k, const struct mt_kfunc *f, uint32_t *offs, int max);
unsigned sites_ret_range(struct site_set *s, struct mt_kimg *k, const struct mt_kfunc *f,
			 uint32_t ret_off, uint64_t *start);

/* reloc.c: in relocated to run at va, written to out (NULL: only
   measure); bytes, or -1 if it cannot move; *ends when the flow does not
   fall through (jmp, call as push+jmp, ret). */
int reloc_insn(const cs_insn *in, uint64_t va, uint8_t *out, int *ends);
/* Where a boot session's trampolines lie: what the providers ask
   reloc_insn() whether a displaced instruction can run there. */
#define LIVE_TRAMP_VA	(LK_KERNEL_MAP_BASE + LK_RESV_PA + LK_TRAMP_OFF)

/* ctypes.c: D declarations for the named type of ctype, malloc'd, NULL
   if unknown. */
char *live_decls(struct mt_kimg *k, const char *ctype);
int live_var_type(struct mt_kimg *k, const char *name, char *buf, size_t len);
int live_struct_of(struct mt_kimg *k, const char *type, char *buf, size_t len);
char *live_decls_n(struct mt_kimg *k, const char *const *ctypes, int n);

/* Kernel description from symbols and DWARF; -1 with err. */
int kdesc_fill(struct mt_kimg *k, struct lk_kdesc *d, uint64_t ram_bytes,
	       char *err, size_t errlen);

struct lprobe {
	uint32_t id;
	const char *prov;
	const char *func;		/* "" for dtrace and profile */
	char name[32];
	uint32_t kind;			/* MT_PK_* */
	uint64_t arg;			/* tick/profile interval ns */
	const struct mt_kfunc *f;	/* fbt, kinst; sdt: its first site's */
	const char *mod;		/* line: the source file, else NULL */
	const struct sdt_probe *sdt;	/* an SDT probe (sdt.h), or NULL */
	struct sdt_loc *locs;		/* sdt: its sites in this kernel */
	uint32_t nlocs;
	struct lk_uarg *uargv;		/* kinst inline entry: each loc's
					   parameters (LK_UARGS_MAX a loc) */
	int inl_nargs;			/* ... the leading ones every copy has */
	const struct umod *um;		/* usdt, pid: the task's program */
	struct lk_usite *usites;	/* usdt, pid: its user sites (all but
					   probe filled in; malloc'd) */
	uint32_t nusites;
};

/* Guest seconds without user-mode code that end a session (tickrate.c). */
#define LK_IDLE_S	10

/* The target's private state (t->priv).  Host code, single-threaded. */
struct live {
	struct mt_live_opts o;
	char kernel[4096], blob[4200], shim[4096];
	char workload[8192], blobmod[4200];
	struct mt_kimg *k;
	struct lprobe *probes;
	uint32_t nprobes, next_id;
	size_t cap;
	/* SDT probes with a site this kernel lacks (sdt.c), warned about
	   when a program names them */
	struct sdt_miss *miss;
	uint32_t nmiss;
	/* user programs (usdt, pid): the boot modules, loaded at creation */
	struct umod *uprogs;
	int nuprogs;
	char **names;			/* provider names made ("machload1") */
	int nnames;
	/* tick/profile probes: why the host did not ask for the local APIC
	   timer ("" when it did: then ctl->apic_why says) */
	char tick_why[200];
	uint64_t go_ticks, go_ns;	/* the clock's count at GO (tickrate.c) */
	uint64_t idle_busy, idle_mark;	/* the watchdog's last busy count and
					   the clock's count then */
	/* with the text check: each CPU's IDT before INIT (4 KiB; idt_va 0
	   when the kernel has no `idt` symbol, or the CPU had not started),
	   compared after STOP */
	uint64_t idt_va[LK_NCPU_MAX];
	uint8_t idt0[LK_NCPU_MAX][4096];
	struct ksdt *ksdt;		/* the kernel's <sys/sdt.h> probes
					   (prov_ksdt.c), NULL if none */
	struct spin *spin;		/* lockstat's inlined spin sites
					   (prov_spin.c), NULL if none */
	struct lk_usite *us;		/* set up at attach: the user sites */
	uint32_t nus;
	/* set up at attach */
	struct site_set ss;
	struct mt_boot *b;
	uint8_t *ram;
	size_t ram_size;
	uint64_t resv_pa, resv_size;
	volatile struct lk_ctl *ctl;
	struct mt_cb *cb;
	int guest_ended, stopped, begun;
	int rebooting;			/* the kernel was held in its reboot */
	struct mt_boot_result res;
	char status[600];
	char kdb[600];			/* the guest stopped in KDB (panic or
					   debugger): why; kept past detach */
	/* user symbols of the boot's programs (usyms.c), loaded on first
	   use: umods[k - 1] is bootstrap module k's ELF (NULL: unreadable) */
	struct usyms *umods[MT_USER_MAX_MODULES];
	int numods, umods_loaded;
	/* machtrace --vm: the running VM (vmattach.c), NULL for a boot */
	struct mt_vm *vm;
	int vm_lock;
	int vm_hooked;			/* the tick hook went in (vma_hook) */
	struct mt_vm_log vmlog;
	FILE *vmcopy;			/* o.console_log, written */
	char *vmmods[MT_USER_MAX_MODULES];		/* the VM's boot modules */
};

/* live.c: t->err from fmt, returns -1; a clock's time in ns */
int live_err(struct mt_target *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint64_t live_now_ns(int clock);

/* vmattach.c: a session on a running VM */
int vma_open(struct mt_target *t);
int vma_hook(struct mt_target *t);
int vma_run(struct live *l, int ms);
void vma_close(struct live *l);
int vma_setup(struct live *l, char *err, size_t errlen);
void vma_free(struct live *l);

/* usyms.c: a guest program's symbols, for ustack() and usym() */
struct usyms;
struct usyms *usyms_load(const char *path, char *err, size_t errlen);
void usyms_free(struct usyms *u);
/* pc inside one of the program's loaded segments? */
int usyms_covers(const struct usyms *u, uint64_t pc);
/* "prog`func+0x1c", a data address "prog`object+0x10" (func NULL in no
   symbol: prog`0x...); -1 when pc is outside the program. */
int usyms_lookup(const struct usyms *u, uint64_t pc, const char **mod,
		 const char **func, uint64_t *off);

int live_probes_init(struct live *l);

/*
 * A provider of the live target, plugged into the probe catalog through a
 * designated-initializer ops table (one file each, prov_*.c).  populate()
 * adds the provider's fixed probes when the target is created, in listing
 * order (ids must stay those `machtrace -l` prints); create() makes
 * on-demand probes for a description that matched nothing: the number made
 * (each reported through cb), 0 when it is not the provider's, -1 with
 * t->err.  Either may be NULL.
 */
struct live_provider {
	const char *name;
	int (*populate)(struct live *l);
	int (*create)(struct mt_target *t, const struct mt_pdesc *pd,
		      mt_probe_cb cb, void *arg);
};

extern const struct live_provider live_prov_dtrace, live_prov_fbt,
	live_prov_profile, live_prov_mach_trap, live_prov_sdt, live_prov_kinst,
	live_prov_usdt, live_prov_pid, live_prov_ksdt, live_prov_line, live_prov_spin;
/* prov_line.c: the instructions of line:FILE:FUNC:N (no globs in FILE
   and N), at most max, lowest first: their count, 0 when pd names none,
   -1 out of memory; -lv of a line in several places; -d of line
   probes (their sites as kinst::FUNC:OFFSET). */
int line_sites(struct live *l, const struct mt_pdesc *pd, const struct mt_kfunc **f,
	       uint64_t *addr, int max);
void line_print_sites(const struct lprobe *p, FILE *out);
char *line_expand(struct mt_target *t, const struct mt_pdesc *pd);
/* prov_ksdt.c: frees l->ksdt */
void ksdt_free(struct live *l);
/* prov_spin.c: frees l->spin */
void spin_free(struct live *l);

/* uprobes.c: the boot modules' programs (l->uprogs), and names kept for
   the target's life; -1 only when out of memory */
int live_uprogs_load(struct live *l);
void live_uprogs_free(struct live *l);
const char *live_name(struct live *l, const char *fmt, ...);
/* Whether a provider description may name a usdt or pid provider
   (machtrace's target rule, without a target). */
int live_user_prov(const char *prov);
/* After STOP: every page the user sites patched against its program's
   ELF; 0 identical (*pages compared), 1 with *where, -1 if unknown. */
int live_utext_compare(struct live *l, uint64_t *where, uint32_t *pages);
const uint8_t *live_text_image(struct mt_kimg *k, uint64_t *start, uint64_t end);

/* sdt.c: the SDT providers' tables (prov_*.c) and their common part */
extern const struct sdt_provider sdt_sched, sdt_ipc, sdt_proc, sdt_vm, sdt_vminfo,
	sdt_lockstat;
int sdt_is_provider(const char *prov);
/* sdtinsn.c: SDT sites and registers from the kernel's instructions */
int sdt_insn_offsets(struct mt_kimg *k, const struct mt_kfunc *f, int where, uint64_t target,
		     int64_t into, uint32_t *offs, int max);
/* what sdt_flow_reg follows a value to (sdt.h's variable fallbacks) */
struct sdt_flow {
	enum { SDT_FLOW_STORED = 1, SDT_FLOW_ARG, SDT_FLOW_BASE } kind;
	uint64_t target;	/* ARG: the function; BASE: the member offset */
	int argn;		/* ARG: which argument, from 0 */
};
int sdt_flow_reg(struct mt_kimg *k, uint64_t addr, const struct sdt_flow *g);
int sdt_counter_sites(struct live *l, struct lprobe *p, const struct sdt_site *s);
/* sdt.c: a site variable's register by its fallback alone (tests) */
int sdt_fallback_reg(struct mt_kimg *k, const char *v, uint64_t addr);
/* tickrate.c: what the clock fallback's rate is on this kernel */
void tick_report(struct live *l);
void tick_rate_report(struct live *l);
void idle_range(struct live *l);
int idle_stalled(struct live *l);
/* sdtreport.c */
void sdt_warn_missing(struct live *l, const struct mt_pdesc *pd);
void sdt_print_sites(const struct live *l, uint32_t id, FILE *out);
/* kinline.c: kinst::FUNC:entry/return of inlined FUNC (ret: return) */
int kinline_sites(struct live *l, struct lprobe *p, const struct mt_kfunc *f, int ret);
void kinline_print_sites(const struct live *l, const struct lprobe *p, FILE *out);
/* Why args[i] of p (kinst::FUNC:entry) is missing: malloc'd, or NULL. */
char *kinline_arg_missing(struct live *l, const struct lprobe *p, int i);
char *kinline_expand(const struct lprobe *p);
void sdt_argmap(const struct lprobe *p, uint8_t *nmap, uint8_t *argmap);
/* sdt.c: record that sp lost sites (placed: whether it has others), said
   when a program names it; -1 out of memory */
int sdt_miss_add(struct live *l, const char *prov, const struct sdt_probe *sp, int placed,
		 const char *why);
/* args[i]'s type (native: its native type when translated, else NULL)
   that every SDT probe matching the description agrees on, or NULL;
   *matched: how many matched */
const char *sdt_argtype(const struct live *l, const char *prov, const char *func,
			const char *name, int i, int native, int *matched);
int sdt_nargs(const struct live *l, const char *prov, const char *func, const char *name);
int sdt_stampers(const struct live *l, const struct lprobe *p, const struct lprobe **out,
		 int max);

/* probes.c, for the providers */
struct lprobe *live_probe_add(struct live *l, const char *prov, const char *func,
			      const char *name, uint32_t kind, uint64_t arg,
			      const struct mt_kfunc *f);
int live_probe_report(const struct lprobe *p, mt_probe_cb cb, void *arg);
int live_fmatch(const char *pat, const char *s);
int live_has_glob(const char *s);
/* plan.c: sites, trampolines and ticks of img into l->ss and c; -1 with
   t->err */
int live_plan(struct mt_target *t, const struct mt_image *img, struct lk_ctl *c);
int live_probes(struct mt_target *t, const struct mt_pdesc *pd, int create,
		mt_probe_cb cb, void *arg);
const struct lprobe *live_probe_by_id(const struct live *l, uint32_t id);

/* contract.c: the kernel target's answers to a session (mt_target_ops'
   ctypes and dlib) */
struct mt_ctypes;
void live_ctypes(struct mt_target *t, struct mt_ctypes *ct);
const char *live_dlib(struct mt_target *t, const char **name);

#endif
