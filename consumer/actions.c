/*
 * The actions of a record: trace, printf, printa, exit, stack, tracemem
 * and the library actions the consumer carries out itself (clear, trunc,
 * normalize, setopt, system, freopen, ftruncate).
 */
#include <stdlib.h>
#include <string.h>
#include "impl.h"

static struct mt_pfarg *
make_args(const struct mt_consumer *c, const struct mt_action *a,
	  const uint8_t *data)
{
	struct mt_pfarg *args = calloc(a->nrecs + 1, sizeof(*args));

	if (args == NULL)
		return NULL;
	for (uint32_t i = 0; i < a->nrecs; i++) {
		const struct mt_rec *r = &c->prog->recs[a->rec0 + i];
		const struct mt_rec_info *ri = c->prog->rec_info ?
			&c->prog->rec_info[a->rec0 + i] : NULL;

		args[i].kind = ri ? ri->kind : (r->kind == MT_REC_STR ?
				MT_TI_STR : MT_TI_INT);
		if (r->kind == MT_REC_STACK)
			args[i].kind = (r->flags & MT_RF_UPID) ? MT_TI_USTACK :
				       MT_TI_STACK;
		args[i].size = r->size;
		if (ri && (ri->kind == MT_TI_INT || ri->kind == MT_TI_UINT) &&
		    ri->size && ri->size < r->size)
			args[i].size = ri->size;
		args[i].data = data + r->offset;
	}
	return args;
}

/* An action's printf-style string, formatted into a malloc'd buffer;
   argsp: its arguments too, for the caller to free. */
static char *
format_action(struct mt_consumer *c, const struct mt_action *a,
	      const struct mt_action_info *ai, const uint8_t *data,
	      struct mt_pfarg **argsp)
{
	struct mt_pfarg *args = make_args(c, a, data);
	char *buf = NULL, err[128];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (m == NULL || args == NULL) {
		free(args);
		if (m)
			fclose(m);
		return NULL;
	}
	mt_printf(m, &c->syms, ai && ai->fmt ? ai->fmt : "", args, a->nrecs,
		  err, sizeof(err));
	fclose(m);
	if (argsp)
		*argsp = args;
	else
		free(args);
	return buf;
}

char *
mt_consumer_format(struct mt_consumer *c, uint32_t action, const uint8_t *data)
{
	if (action >= c->prog->nactions)
		return NULL;
	return format_action(c, &c->prog->actions[action], c->prog->action_info ?
			     &c->prog->action_info[action] : NULL, data, NULL);
}

static void
liberr(struct mt_consumer *c, uint32_t epid, const struct mt_probe *p,
       const char *msg)
{
	c->o->liberr(c, msg);
	fprintf(c->err, "dtrace: error on enabled probe ID %u (ID %u: "
		"%s:%s:%s:%s): %s\n", epid, p->id, img_str(c, p->prov),
		img_str(c, p->mod), img_str(c, p->func), img_str(c, p->name),
		msg);
}

/* String rec i of an action, copied out NUL-terminated; NULL if absent. */
static char *
rec_string(const struct mt_consumer *c, const struct mt_action *a, uint32_t i,
	   const uint8_t *data, char *buf, size_t len)
{
	const struct mt_rec *r;
	size_t n;

	if (i >= a->nrecs || len == 0)
		return NULL;
	r = &c->prog->recs[a->rec0 + i];
	n = strnlen((const char *)data + r->offset, r->size);
	if (n >= len)
		n = len - 1;
	memcpy(buf, data + r->offset, n);
	buf[n] = '\0';
	return buf;
}

/*
 * setopt(name[, value]): a string constant is in the action info; a name
 * or value computed at run time is a string rec, name's first.
 */
static void
act_setopt(struct mt_consumer *c, uint32_t epid, const struct mt_probe *p,
	   const struct mt_action *a, const struct mt_action_info *ai,
	   const uint8_t *data)
{
	char nbuf[256], vbuf[256], why[128], msg[768];
	const char *name = ai->opt_name, *val = ai->opt_value;
	uint32_t i = 0;

	if (name == NULL && (name = rec_string(c, a, i++, data, nbuf,
					       sizeof(nbuf))) == NULL)
		return;
	if (val == NULL)
		val = rec_string(c, a, i, data, vbuf, sizeof(vbuf));
	if (val == NULL)
		val = "1";
	if (mt_opts_set_active(c->opts, name, val, why, sizeof(why)) == 0)
		return;
	/* dtrace ends this message with a newline of its own */
	snprintf(msg, sizeof(msg), "couldn't set option \"%s\" to \"%s\": "
		 "%s\n", name, val, why);
	liberr(c, epid, p, msg);
}

static int64_t
rec_value(const struct mt_consumer *c, const struct mt_action *a, uint32_t i,
	  const uint8_t *data)
{
	const struct mt_rec *r;

	if (i >= a->nrecs)
		return 0;
	r = &c->prog->recs[a->rec0 + i];
	return mt_rec_int(r, data);
}

/* clear, trunc, normalize, denormalize, setopt: nothing to print. */
static void
lib_action(struct mt_consumer *c, uint32_t epid, const struct mt_probe *p,
	   const struct mt_action *a, const struct mt_action_info *ai,
	   const uint8_t *data)
{
	uint32_t aggid = ai && ai->naggids ? ai->aggids[0] : 0;
	int64_t n;

	switch (a->kind) {
	case MT_ACT_CLEAR:
		agg_clear(c, aggid);
		break;
	case MT_ACT_NORMALIZE:
		if (aggid && aggid <= c->prog->naggs) {
			n = rec_value(c, a, 0, data);
			c->normal[aggid] = n > 0 ? (uint64_t)n : 1;
		}
		break;
	case MT_ACT_DENORMALIZE:
		if (aggid && aggid <= c->prog->naggs)
			c->normal[aggid] = 1;
		break;
	case MT_ACT_TRUNC:
		agg_trunc(c, aggid, rec_value(c, a, 0, data), a->nrecs == 0);
		break;
	case MT_ACT_SETOPT:
		if (ai)
			act_setopt(c, epid, p, a, ai, data);
		break;
	default:
		break;
	}
}

/* printf(), system(), freopen(): a formatted string. */
static void
string_action(struct mt_consumer *c, const struct mt_action *a,
	      const struct mt_action_info *ai, const uint8_t *data)
{
	struct mt_pfarg *args = NULL;
	char *s = format_action(c, a, ai, data,
				a->kind == MT_ACT_PRINTF ? &args : NULL);

	if (a->kind == MT_ACT_PRINTF && s != NULL)
		c->o->message(c, s, args, (int)a->nrecs);
	else if (a->kind == MT_ACT_SYSTEM && s != NULL)
		c->o->system(c, s);
	else if (a->kind == MT_ACT_FREOPEN)
		c->o->freopen(c, s);
	free(args);
	free(s);
}

static void
act_exit(struct mt_consumer *c, const struct mt_action *a,
	 const uint8_t *data)
{
	c->status = (int)rec_value(c, a, 0, data);
	if (!c->exited) {
		/* data follows its record's header */
		const struct mt_rechdr *h = (const void *)data;

		c->exit_ts = h[-1].timestamp;
		c->exit_cpu = h[-1].cpu;
	}
	c->exited = 1;
	c->o->exit(c, c->status);
}

/* sym(), mod(), usym(), umod(), uaddr() of rec r. */
static void
act_sym(struct mt_consumer *c, const struct mt_action *a,
	const struct mt_rec *r, const uint8_t *data)
{
	struct mt_rec_info ri = { MT_TI_SYM, 0, r->size, NULL, NULL };

	ri.kind = a->kind == MT_ACT_SYM ? MT_TI_SYM :
		  a->kind == MT_ACT_MOD ? MT_TI_MOD :
		  a->kind == MT_ACT_USYM ? MT_TI_USYM :
		  a->kind == MT_ACT_UMOD ? MT_TI_UMOD : MT_TI_UADDR;
	c->o->sym(c, &ri, data + r->offset);
}

/* tracemem(addr, size[, dsize]): at most dsize of the bytes. */
static void
act_tracemem(struct mt_consumer *c, const struct mt_action *a,
	     const struct mt_rec *r, const uint8_t *data)
{
	uint64_t n = r->size;

	if (a->nrecs > 1) {
		int64_t dn = rec_value(c, a, 1, data);

		if (dn >= 0 && (uint64_t)dn < n)
			n = (uint64_t)dn;
	}
	c->o->tracemem(c, data + r->offset, n);
}

/* Run one action of a record, in the output's format (c->o). */
void
do_action(struct mt_consumer *c, uint32_t epid, const struct mt_probe *p,
	  uint32_t ai_idx, const uint8_t *data)
{
	const struct mt_action *a = &c->prog->actions[ai_idx];
	const struct mt_action_info *ai = c->prog->action_info ?
		&c->prog->action_info[ai_idx] : NULL;
	const struct mt_rec *r = a->nrecs ? &c->prog->recs[a->rec0] : NULL;

	switch (a->kind) {
	case MT_ACT_TRACE:
		if (r)
			c->o->trace(c, r, c->prog->rec_info ?
				    &c->prog->rec_info[a->rec0] : NULL,
				    data + r->offset);
		break;
	case MT_ACT_PRINTF: case MT_ACT_SYSTEM: case MT_ACT_FREOPEN:
		string_action(c, a, ai, data);
		break;
	case MT_ACT_PRINTA:
		if (ai)
			c->o->printa(c, ai->fmt, ai->aggids, (int)ai->naggids);
		break;
	case MT_ACT_EXIT:
		act_exit(c, a, data);
		break;
	case MT_ACT_STACK: case MT_ACT_USTACK:
		if (r)
			c->o->stack(c, a->kind == MT_ACT_USTACK,
				    data + r->offset, r->size);
		break;
	case MT_ACT_TRACEMEM:
		if (r)
			act_tracemem(c, a, r, data);
		break;
	case MT_ACT_FTRUNCATE:
		c->o->ftruncate(c);
		break;
	case MT_ACT_PRINT:
		c->o->print(c, a, data);
		break;
	case MT_ACT_SYM: case MT_ACT_MOD: case MT_ACT_USYM: case MT_ACT_UMOD:
	case MT_ACT_UADDR:
		if (r)
			act_sym(c, a, r, data);
		break;
	default:
		lib_action(c, epid, p, a, ai, data);
		break;
	}
}
