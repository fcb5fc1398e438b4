/*
 * Probe-firing cost of the runtime, measured in-process on the local
 * target: ns per mt_rt_probe() for six D clauses, each next to the cost
 * of an empty (noinline) function call measured in the same run.
 *
 * `probe_bench --firing` instead prints, for the clause shapes of
 * bench/firing_bench.sh, "host NAME ns N": the interpreter's ns per firing
 * here beside the guest instructions per firing there, and "host NAME
 * compiled ns N": the local target's compiled code's (jit/; "compiled
 * interpreted" when the probe is not compiled).  Its latency pair fires
 * BEGIN as the entry and END as the return, alternately.  These use the
 * switch buffer policy, the default and the compiled code's, consumed
 * every 4096 firings.
 *
 * The images come from the real compiler (mt_compile + mt_link against
 * dtrace:::BEGIN); if that fails, from hand-assembled bytecode.  The
 * principal buffer uses the ring policy so that every trace() record is
 * really written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "machtrace/compiler.h"
#include "machtrace/jitabi.h"
#include "machtrace/options.h"
#include "machtrace/program.h"
#include "machtrace/runtime.h"
#include "tests/lib/rtimg.h"

#define ITERS	2000000
#define ROUNDS	5

struct bcase {
	const char *label, *src;
};
struct fcase {
	const char *name, *src;
};

static const struct bcase cases[] = {
	{ "(a) false predicate        ", "BEGIN /arg0 == 0xdeadbeef/ { trace(arg0); }" },
	{ "(b) trace(arg0)            ", "BEGIN { trace(arg0); }" },
	{ "(c) @[arg0 & 0xff] = count()", "BEGIN { @[arg0 & 0xff] = count(); }" },
	{ "(d) @ = quantize(arg0)     ", "BEGIN { @ = quantize(arg0); }" },
	/* compiled only: a Mach RPC's name (binary search) as a string key */
	{ "(e) @[mach_msgname(id)] = count()",
	  "BEGIN { @[mach_msgname(2000 + (arg0 & 0xff))] = count(); }" },
	/* the same string key without the lookup, for comparison */
	{ "(f) @[lltostr(id)] = count()",
	  "BEGIN { @[lltostr(2000 + (arg0 & 0xff))] = count(); }" },
};
#define NHANDMADE	4	/* cases handmade() can build */

/* bench/firing_bench.sh's clauses, with BEGIN for fbt::mach_msg_trap:entry
   and END for its return */
static const struct fcase firing_cases[] = {
	{ "count", "BEGIN { @ = count(); }" },
	{ "false-predicate", "BEGIN /arg0 == 0xdeadbeef/ { @ = count(); }" },
	{ "execname-predicate", "BEGIN /execname == \"probe_bench\"/ { @ = count(); }" },
	{ "key-execname", "BEGIN { @[execname] = count(); }" },
	{ "key-probefunc", "BEGIN { @[probefunc] = count(); }" },
	{ "trace", "BEGIN { trace(arg0); }" },
	{ "printf", "BEGIN { printf(\"%d %d\\n\", arg0, arg1); }" },
	{ "latency-pair", "BEGIN { self->ts = timestamp; } "
	  "END /self->ts/ { @ = quantize(timestamp - self->ts); self->ts = 0; }" },
};
#define FIRING_ITERS	500000

__attribute__((noinline)) static void empty_call(uint64_t x)
{
	__asm__ volatile("" : : "r"(x) : "memory");
}

static void (*volatile empty_fp)(uint64_t) = empty_call;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static struct mt_image *compiled(const char *src, struct mt_target *t, uint32_t policy)
{
	struct mt_cc_src s = { src, src, 0 };
	struct mt_cc_input in;
	struct mt_diag diag;
	struct mt_opts opts;
	struct mt_prog *prog;
	struct mt_image *img;
	char err[512];

	memset(&in, 0, sizeof(in));
	mt_opts_init(&opts);
	opts.bufpolicy = policy;
	in.srcs = &s;
	in.nsrcs = 1;
	in.opts = &opts;
	prog = mt_compile(&in, &diag);
	if (!prog) {
		fprintf(stderr, "bench: compile: %s\n", diag.msg);
		return NULL;
	}
	img = mt_link(prog, &opts, t, NULL, err, sizeof(err));
	if (!img)
		fprintf(stderr, "bench: link: %s\n", err);
	mt_prog_free(prog);
	return img;
}

/* The same four clauses, hand-assembled (fallback). */
static struct mt_image *handmade(int which)
{
	struct ib b;

	ib_init(&b);
	b.opt.bufsize = 4 << 20;
	b.opt.aggsize = 4 << 20;
	b.opt.bufpolicy = MT_BUFPOLICY_RING;
	uint32_t a0 = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
			      R(RET, 0, 0, 1));
	if (which == 0) {
		uint32_t k = ib_int(&b, 0xdeadbeef), one = ib_int(&b, 1);
		uint32_t p = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
				     RV(SETX, k, 2), R(CMP, 1, 2, 0), RB(BE, 5),
				     R(RET, 0, 0, 0), RV(SETX, one, 3),
				     R(RET, 0, 0, 3));
		ib_clause(&b, 0, p, 8);
		ib_action(&b, MT_ACT_TRACE, 0);
		ib_rec(&b, a0, MT_REC_INT, 0, 8, 0);
	} else if (which == 1) {
		ib_clause(&b, 0, 0, 8);
		ib_action(&b, MT_ACT_TRACE, 0);
		ib_rec(&b, a0, MT_REC_INT, 0, 8, 0);
	} else if (which == 2) {
		uint32_t m = ib_int(&b, 0xff);
		uint32_t key = IB_DIFO(&b, MT_RT_INT, RV(LDGS, MT_VAR_ARG0, 1),
				       RV(SETX, m, 2), R(AND, 1, 2, 1),
				       R(RET, 0, 0, 1));
		uint32_t id = ib_agg(&b, MT_AGG_COUNT, 1, 16, 1, 0, 0, 0, 0);
		ib_clause(&b, 0, 0, 0);
		b.clauses[0].flags = 0;
		ib_action(&b, MT_ACT_AGG, id);
		ib_rec(&b, key, MT_REC_INT, 0, 8, 0);
	} else {
		uint32_t id = ib_agg(&b, MT_AGG_QUANTIZE, 0, 8, 127, 0, 0, 0, 0);
		ib_clause(&b, 0, 0, 0);
		b.clauses[0].flags = 0;
		ib_action(&b, MT_ACT_AGG, id);
		ib_rec(&b, a0, MT_REC_INT, 0, 8, MT_RF_AGGVAL);
	}
	return ib_build(&b);
}

static double time_empty(void)
{
	double best = 1e18;

	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_ns();
		for (uint64_t i = 0; i < ITERS; i++)
			empty_fp(i);
		double dt = (now_ns() - t0) / ITERS;
		if (dt < best)
			best = dt;
	}
	return best;
}

static double time_probe(struct mt_cb *cb, uint32_t pi)
{
	struct mt_pctx ctx;
	double best = 1e18;

	memset(&ctx, 0, sizeof(ctx));
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_ns();
		for (uint64_t i = 0; i < ITERS; i++) {
			ctx.arg[0] = i * 2654435761u >> 7;
			mt_rt_probe(cb, pi, &ctx);
		}
		double dt = (now_ns() - t0) / ITERS;
		if (dt < best)
			best = dt;
	}
	return best;
}

/* Probe pi: through the local target's compiled code (jit), else
   mt_rt_probe (the interpreter); every 4096 firings the buffer is
   consumed (a switch buffer would otherwise fill and drop). */
static void fire_one(struct mt_target *t, struct mt_cb *cb, uint32_t pi,
		     const struct mt_pctx *ctx, int jit, struct mt_cpubuf *buf, uint64_t i)
{
	if (jit)
		mt_local_fire(t, pi, ctx->arg);
	else
		mt_rt_probe(cb, pi, ctx);
	if ((i & 4095) == 0)
		buf->tail = buf->head;
}

/* ns per firing, best round; pair >= 0: alternate with that probe */
static double time_firing(struct mt_target *t, uint32_t pi, int pair, int jit)
{
	struct mt_cb *cb = t->ops->cb(t);
	struct mt_cpubuf *buf = (void *)(uintptr_t)mt_rt_jit_addr(cb, MT_JR_CPUBUF, 0, 0);
	struct mt_pctx ctx;
	double best = 1e18;

	memset(&ctx, 0, sizeof(ctx));
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now_ns();
		for (uint64_t i = 0; i < FIRING_ITERS; i++) {
			ctx.arg[0] = i * 2654435761u >> 7;
			ctx.arg[1] = i;
			fire_one(t, cb, pi, &ctx, jit, buf, i);
			if (pair >= 0)
				fire_one(t, cb, (uint32_t)pair, &ctx, jit, buf, i);
		}
		double dt = (now_ns() - t0) / FIRING_ITERS / (pair >= 0 ? 2 : 1);
		if (dt < best)
			best = dt;
	}
	return best;
}

/* The compiled figure, or why there is none. */
static void firing_jit(struct mt_target *t, const char *name, uint32_t pi, int pe)
{
	uint64_t args[MT_NARGS] = { 0 };

	if (mt_local_fire(t, pi, args) != 0 || (pe >= 0 && mt_local_fire(t, (uint32_t)pe, args) != 0))
		printf("host %s compiled interpreted\n", name);
	else
		printf("host %s compiled ns %.1f\n", name, time_firing(t, pi, pe, 1));
}

static int firing(void)
{
	for (size_t c = 0; c < sizeof(firing_cases) / sizeof(firing_cases[0]); c++) {
		struct mt_target *t = mt_local_target_new();
		struct mt_image *img = compiled(firing_cases[c].src, t, MT_BUFPOLICY_SWITCH);

		if (!img || t->ops->attach(t, img) != 0) {
			fprintf(stderr, "bench: %s: %s\n", firing_cases[c].name,
				img ? mt_target_error(t) : "no image");
			return 1;
		}
		free(img);
		struct mt_cb *cb = t->ops->cb(t);
		int pi = mt_rt_probe_index(cb, MT_PROBE_BEGIN);
		int pe = strstr(firing_cases[c].src, "END") ?
			mt_rt_probe_index(cb, MT_PROBE_END) : -1;
		if (pi < 0) {
			fprintf(stderr, "bench: no BEGIN probe in image\n");
			return 1;
		}
		printf("host %s ns %.1f\n", firing_cases[c].name,
		       time_firing(t, (uint32_t)pi, pe, 0));
		firing_jit(t, firing_cases[c].name, (uint32_t)pi, pe);
		t->ops->detach(t);
		mt_target_free(t);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int hand = 0;

	if (argc > 1 && strcmp(argv[1], "--firing") == 0)
		return firing();
	if (argc > 1) {
		fprintf(stderr, "usage: probe_bench [--firing]\n");
		return 2;
	}

	printf("runtime probe firing (local target, %d firings x %d rounds, "
	       "best round)\n", ITERS, ROUNDS);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct mt_target *t = mt_local_target_new();
		struct mt_image *img = compiled(cases[c].src, t, MT_BUFPOLICY_RING);

		if (!img && c >= NHANDMADE) {
			mt_target_free(t);
			continue;
		}
		if (!img) {
			img = handmade((int)c);
			hand = 1;
		}
		if (t->ops->attach(t, img) != 0) {
			fprintf(stderr, "bench: %s\n", mt_target_error(t));
			return 1;
		}
		free(img);
		struct mt_cb *cb = t->ops->cb(t);
		int pi = mt_rt_probe_index(cb, MT_PROBE_BEGIN);
		if (pi < 0) {
			fprintf(stderr, "bench: no BEGIN probe in image\n");
			return 1;
		}
		double e1 = time_empty();
		double p = time_probe(cb, (uint32_t)pi);
		double e2 = time_empty();
		double e = e1 < e2 ? e1 : e2;
		printf("  %s %7.1f ns/firing   empty call %5.2f ns   ratio %6.1fx\n",
		       cases[c].label, p, e, p / e);
		t->ops->detach(t);
		mt_target_free(t);
	}
	printf("  (images built by %s)\n", hand ? "hand-assembled bytecode" :
	       "the machtrace compiler");
	return 0;
}
