/*
 * The local target: the probe-context runtime hosted in the machtrace
 * process.  Probes: dtrace:::BEGIN (1), END (2), ERROR (3), the profile
 * provider's default probes and on-demand profile:::tick-N / profile-N
 * (N with a unit: ns nsec us usec ms msec s sec m min h hour d day hz;
 * hz when none, as dtrace parses them).  Single-threaded: poll() sleeps
 * until the next tick/profile deadline and fires it on CPU 0.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "machtrace/program.h"
#include "machtrace/runtime.h"
#include "machtrace/vec.h"
#include "targets/local/local.h"


struct lprobe {
	uint32_t id;
	const char *prov;
	char name[64];
	uint32_t kind;
	uint64_t arg;
};

struct ltick {
	uint32_t pidx;			/* image probe index */
	uint64_t interval, next;
};

struct local {
	struct lprobe *probes;
	uint32_t nprobes, next_id;
	size_t cap;
	void *area;
	uint64_t area_size;
	struct mt_cb *cb;
	struct local_jit *jit;		/* compiled probes (jit.c), or NULL */
	struct ltick *ticks;
	uint32_t nticks;
	int begun, ended;
	int vtime;			/* the image reads vtimestamp */
};

static int seterr(struct mt_target *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return -1;
}

static struct lprobe *add_probe(struct local *l, const char *prov,
				const char *name, uint32_t kind, uint64_t arg)
{
	struct lprobe *p;

	if (MT_VEC_ROOM(l->probes, l->nprobes, l->cap, 32) != 0)
		return NULL;
	p = &l->probes[l->nprobes++];
	p->id = l->next_id++;
	p->prov = prov;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->kind = kind;
	p->arg = arg;
	return p;
}

static int field_match(const char *pat, const char *s)
{
	return !pat || !*pat || fnmatch(pat, s, 0) == 0;
}

static int pd_match(const struct mt_pdesc *pd, const struct lprobe *p)
{
	return field_match(pd->prov, p->prov) && field_match(pd->mod, "") &&
		field_match(pd->func, "") && field_match(pd->name, p->name);
}

static int report(const struct lprobe *p, mt_probe_cb cb, void *arg)
{
	struct mt_probe_info info = {
		.id = p->id, .prov = p->prov, .mod = "", .func = "",
		.name = p->name, .kind = p->kind, .arg = p->arg,
	};
	return cb ? cb(arg, &info) : 0;
}

static int has_glob(const char *s)
{
	return s && strpbrk(s, "*?[\\") != NULL;
}

static int local_probes(struct mt_target *t, const struct mt_pdesc *pd,
			int create, mt_probe_cb cb, void *arg)
{
	struct local *l = t->priv;
	int n = 0;
	uint32_t kind;
	uint64_t ns;

	for (uint32_t i = 0; i < l->nprobes; i++) {
		if (!pd_match(pd, &l->probes[i]))
			continue;
		n++;
		if (report(&l->probes[i], cb, arg) < 0)
			return -1;
	}
	if (n || !create || !pd->name || has_glob(pd->name) ||
	    !field_match(pd->prov, "profile") || !field_match(pd->mod, "") ||
	    !field_match(pd->func, "") ||
	    mt_profile_parse(pd->name, &kind, &ns) != 0)
		return n;
	struct lprobe *p = add_probe(l, "profile", pd->name, kind, ns);
	if (!p)
		return seterr(t, "out of memory");
	if (report(p, cb, arg) < 0)
		return -1;
	return 1;
}

static void local_detach(struct mt_target *t)
{
	struct local *l = t->priv;

	mt_local_jit_free(l->jit);
	mt_local_area_free(l->area, l->area_size);
	free(l->ticks);
	l->jit = NULL;
	l->area = NULL;
	l->cb = NULL;
	l->ticks = NULL;
	l->nticks = 0;
	l->begun = l->ended = 0;
}

static int local_attach(struct mt_target *t, const struct mt_image *img)
{
	struct local *l = t->priv;
	const struct mt_probe *pr;
	uint64_t size;

	local_detach(t);
	mt_local_plat_init();
	size = mt_rt_size(img);
	if (size == 0)
		return seterr(t, "invalid enabling image");
	l->area = mt_local_area_alloc(size);
	if (!l->area)
		return seterr(t, "cannot allocate %llu bytes of runtime state",
			      (unsigned long long)size);
	l->area_size = size;
	if (mt_rt_init(l->area, size, img, t->err, sizeof(t->err)) != 0) {
		mt_local_area_free(l->area, size);
		l->area = NULL;
		return -1;
	}
	l->cb = l->area;
	img = mt_rt_image(l->cb);
	l->jit = mt_local_jit_new(l->cb, img, size);
	l->vtime = mt_image_reads_var(img, MT_VAR_VTIMESTAMP);
	pr = (const void *)((const uint8_t *)img + img->probes_off);
	l->ticks = calloc(img->nprobes ? img->nprobes : 1, sizeof(*l->ticks));
	if (!l->ticks)
		return seterr(t, "out of memory");
	for (uint32_t i = 0; i < img->nprobes; i++) {
		if ((pr[i].kind == MT_PK_TICK || pr[i].kind == MT_PK_PROFILE) &&
		    pr[i].arg && pr[i].necbs) {
			l->ticks[l->nticks].pidx = i;
			l->ticks[l->nticks].interval = pr[i].arg;
			l->nticks++;
		}
	}
	return 0;
}

static struct mt_cb *local_cb(struct mt_target *t)
{
	return ((struct local *)t->priv)->cb;
}

/* Probe index pi with arguments args (as many as an mt_pctx holds): its
   compiled code, else (not compiled, or the code's guards refuse the
   firing) the interpreter.  0 if the compiled code ran it.  Only an
   image that reads vtimestamp pays for its clock (two clock_gettimes). */
static int fire_args(struct local *l, uint32_t pi, const uint64_t *args)
{
	struct mt_pctx ctx;
	int rc = 0;

	if (l->vtime)
		mt_local_plat_fire_start();
	if (mt_local_jit_fire(l->jit, pi, args) != 0) {
		memset(&ctx, 0, sizeof(ctx));
		memcpy(ctx.arg, args, sizeof(ctx.arg));
		mt_rt_probe(l->cb, pi, &ctx);
		rc = 1;
	}
	if (l->vtime)
		mt_local_plat_fire_end();
	return rc;
}

/* BEGIN, END, ERROR's firing, a tick's: no arguments. */
static void fire(struct local *l, uint32_t pi)
{
	uint64_t none[sizeof(((struct mt_pctx *)0)->arg) / sizeof(uint64_t)] = { 0 };

	fire_args(l, pi, none);
}

static void fire_id(struct local *l, uint32_t id)
{
	int pi = mt_rt_probe_index(l->cb, id);

	if (pi >= 0)
		fire(l, (uint32_t)pi);
}

static int local_begin(struct mt_target *t)
{
	struct local *l = t->priv;
	uint64_t now;

	if (!l->cb)
		return seterr(t, "not attached");
	fire_id(l, MT_PROBE_BEGIN);
	l->begun = 1;
	now = mt_plat_time();
	for (uint32_t i = 0; i < l->nticks; i++)
		l->ticks[i].next = now + l->ticks[i].interval;
	return 0;
}

static int exiting(struct local *l)
{
	return __atomic_load_n(&l->cb->state, __ATOMIC_ACQUIRE) != MT_CB_ACTIVE;
}

static void sleep_until(uint64_t deadline)
{
	uint64_t now = mt_plat_time();
	struct timespec ts;

	if (deadline <= now)
		return;
	ts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
	ts.tv_nsec = (long)((deadline - now) % 1000000000ull);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		return;			/* a signal (Ctrl-C): let the caller see */
}

static int local_poll(struct mt_target *t, uint64_t max_ns)
{
	struct local *l = t->priv;
	uint64_t now, limit, next = UINT64_MAX;

	if (!l->cb)
		return seterr(t, "not attached");
	if (exiting(l))
		return 1;
	now = mt_plat_time();
	limit = max_ns > UINT64_MAX - now ? UINT64_MAX : now + max_ns;
	for (uint32_t i = 0; i < l->nticks; i++)
		if (l->ticks[i].next < next)
			next = l->ticks[i].next;
	if (next > limit) {
		sleep_until(limit);
		return exiting(l);
	}
	sleep_until(next);
	now = mt_plat_time();
	for (uint32_t i = 0; i < l->nticks && !exiting(l); i++) {
		struct ltick *tk = &l->ticks[i];

		if (tk->next > now)
			continue;
		fire(l, tk->pidx);
		tk->next += tk->interval;
		if (tk->next <= now)
			tk->next = now + tk->interval;
	}
	return exiting(l);
}

static int local_end(struct mt_target *t)
{
	struct local *l = t->priv;

	if (!l->cb)
		return seterr(t, "not attached");
	if (!l->ended) {
		fire_id(l, MT_PROBE_END);
		l->ended = 1;
	}
	__atomic_store_n(&l->cb->state, MT_CB_STOPPED, __ATOMIC_RELEASE);
	return 0;
}

static int local_aggclear(struct mt_target *t, uint32_t aggid, int trunc)
{
	struct local *l = t->priv;

	if (!l->cb)
		return seterr(t, "not attached");
	mt_rt_aggclear(l->cb, aggid, trunc);
	return 0;
}

static void local_free(struct mt_target *t)
{
	struct local *l = t->priv;

	free(l->probes);
	free(l);
}

int mt_local_fire(struct mt_target *t, uint32_t pi, const uint64_t *args)
{
	return fire_args(t->priv, pi, args);
}

static const struct mt_target_ops local_ops = {
	.name = "local",
	.probes = local_probes,
	.attach = local_attach,
	.cb = local_cb,
	.begin = local_begin,
	.poll = local_poll,
	.end = local_end,
	.aggclear = local_aggclear,
	.detach = local_detach,
	.free = local_free,
};

struct mt_target *mt_local_target_new(void)
{
	struct mt_target *t = calloc(1, sizeof(*t));
	struct local *l = calloc(1, sizeof(*l));
	uint32_t kind;
	uint64_t ns;

	if (!t || !l) {
		free(t);
		free(l);
		return NULL;
	}
	t->ops = &local_ops;
	t->priv = l;
	l->next_id = MT_PROBE_BEGIN;
	if (!add_probe(l, "dtrace", "BEGIN", MT_PK_BEGIN, 0) ||
	    !add_probe(l, "dtrace", "END", MT_PK_END, 0) ||
	    !add_probe(l, "dtrace", "ERROR", MT_PK_ERROR, 0))
		goto fail;
	for (size_t i = 0; mt_profile_defaults[i]; i++) {
		mt_profile_parse(mt_profile_defaults[i], &kind, &ns);
		if (!add_probe(l, "profile", mt_profile_defaults[i], kind, ns))
			goto fail;
	}
	return t;
fail:
	free(l->probes);
	free(l);
	free(t);
	return NULL;
}

