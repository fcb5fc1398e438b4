/*
 * The actions of a record: trace, printf, printa, exit, stack, tracemem
 * and the library actions the consumer carries out itself (clear, trunc,
 * normalize, setopt, system, freopen, ftruncate).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* Format an action's printf-style string into a malloc'd buffer. */
/* json: also emit it as a printf() value (-xoformat=json). */
static char *
format_action(struct mt_consumer *c, const struct mt_action *a,
	      const struct mt_action_info *ai, const uint8_t *data, int json)
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
	if (json && buf)
		js_printf(c, buf, args, (int)a->nrecs);
	free(args);
	return buf;
}

char *
mt_consumer_format(struct mt_consumer *c, uint32_t action, const uint8_t *data)
{
	if (action >= c->prog->nactions)
		return NULL;
	return format_action(c, &c->prog->actions[action], c->prog->action_info ?
			     &c->prog->action_info[action] : NULL, data, 0);
}

static void
liberr(struct mt_consumer *c, uint32_t epid, const struct mt_probe *p,
       const char *msg)
{
	if (c->json)
		js_text(c, "error", msg);
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

static void
act_freopen(struct mt_consumer *c, const char *path)
{
	FILE *f;

	fflush(c->out);
	if (path == NULL || path[0] == '\0') {
		if (c->out != c->orig_out) {
			fclose(c->out);
			c->out = c->orig_out;
		}
		return;
	}
	if ((f = fopen(path, "a")) == NULL) {
		fprintf(c->err, "dtrace: couldn't freopen() \"%s\"\n", path);
		return;
	}
	if (c->out != c->orig_out)
		fclose(c->out);
	c->out = f;
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

static void act_print(struct mt_consumer *c, const struct mt_action *a,
		      const uint8_t *data);

/* print() as JSON: {"print": the text print_tdesc() lays out, "type"}. */
static void
print_json(struct mt_consumer *c, const struct mt_action *a,
	   const struct mt_rec *r, const struct mt_rec_info *ri,
	   const uint8_t *data)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len), *out = c->out;
	int json = c->json, quiet = c->opts->quiet;

	if (m == NULL)
		return;
	c->out = m;
	c->json = 0;
	c->opts->quiet = 1;
	act_print(c, a, data);
	c->opts->quiet = quiet;
	c->json = json;
	c->out = out;
	fclose(m);
	mt_json_open(&c->jw, NULL, 0);
	if (ri->ctype)
		mt_json_strz(&c->jw, "type", ri->ctype);
	mt_json_str(&c->jw, "print", buf ? buf : "", len);
	mt_json_close(&c->jw);
	free(buf);
}

/*
 * print(): laid out by the value's type description (rec_info.tdesc, see
 * ptype.c), else like trace().  A pointer to a struct, union or array
 * has a second rec with the bytes it points to (at most printsize).
 */
static void
act_print(struct mt_consumer *c, const struct mt_action *a,
	  const uint8_t *data)
{
	const struct mt_rec *r = a->nrecs ? &c->prog->recs[a->rec0] : NULL;
	const struct mt_rec_info *ri = c->prog->rec_info ?
		&c->prog->rec_info[a->rec0] : NULL;
	uint32_t have;

	if (r == NULL)
		return;
	if (ri == NULL || ri->tdesc == NULL) {
		if (c->json)
			js_trace(c, r, ri, data + r->offset);
		else
			datum_trace(c, c->out, r, ri, data + r->offset);
		return;
	}
	if (c->json) {
		print_json(c, a, r, ri, data);
		return;
	}
	if (!c->opts->quiet)
		fputc('\n', c->out);
	if (ri->tdesc[0] == 'p' && a->nrecs > 1 && ri[1].tdesc) {
		const struct mt_rec *m = &c->prog->recs[a->rec0 + 1];

		have = m->size;
		if (c->opts->printsize && c->opts->printsize < have)
			have = (uint32_t)c->opts->printsize;
		print_tdesc(c->out, ri[1].tdesc, data + r->offset,
			    data + m->offset, have);
		return;
	}
	print_tdesc(c->out, ri->tdesc, NULL, data + r->offset, r->size);
}

/* Run one action of a record; returns 1 if it printed data. */
void
do_action(struct mt_consumer *c, uint32_t epid, const struct mt_probe *p,
	  uint32_t ai_idx, const uint8_t *data)
{
	const struct mt_action *a = &c->prog->actions[ai_idx];
	const struct mt_action_info *ai = c->prog->action_info ?
		&c->prog->action_info[ai_idx] : NULL;
	const struct mt_rec *r = a->nrecs ? &c->prog->recs[a->rec0] : NULL;
	uint32_t aggid = ai && ai->naggids ? ai->aggids[0] : 0;
	char *s;

	switch (a->kind) {
	case MT_ACT_TRACE:
		if (r && c->json)
			js_trace(c, r, c->prog->rec_info ?
				 &c->prog->rec_info[a->rec0] : NULL,
				 data + r->offset);
		else if (r)
			datum_trace(c, c->out, r, c->prog->rec_info ?
				    &c->prog->rec_info[a->rec0] : NULL,
				    data + r->offset);
		break;
	case MT_ACT_PRINTF:
		if ((s = format_action(c, a, ai, data, c->json)) != NULL) {
			if (!c->json)
				fputs(s, c->out);
			free(s);
		}
		break;
	case MT_ACT_PRINTA:
		if (ai && c->json)
			js_printa(c, ai->fmt, ai->aggids, (int)ai->naggids);
		else if (ai)
			agg_printa(c, c->out, ai->fmt, ai->aggids,
				   (int)ai->naggids);
		break;
	case MT_ACT_EXIT:
		c->status = (int)rec_value(c, a, 0, data);
		if (!c->exited) {
			/* data follows its record's header */
			const struct mt_rechdr *h = (const void *)data;

			c->exit_ts = h[-1].timestamp;
		}
		c->exited = 1;
		if (c->json)
			js_int(c, "exit", c->status);
		break;
	case MT_ACT_STACK:
	case MT_ACT_USTACK:
		if (r && c->json)
			js_stack(c, a->kind == MT_ACT_USTACK, data + r->offset,
				 r->size);
		else if (r)
			datum_stack(c, c->out, a->kind == MT_ACT_USTACK,
				    data + r->offset, r->size);
		break;
	case MT_ACT_TRACEMEM: {
		uint64_t n = r ? r->size : 0;

		if (a->nrecs > 1) {
			int64_t dn = rec_value(c, a, 1, data);
			if (dn >= 0 && (uint64_t)dn < n)
				n = (uint64_t)dn;
		}
		if (r && c->json)
			js_hex(c, "tracemem", data + r->offset, n);
		else if (r)
			mt_print_rawbytes(c->out, data + r->offset, n);
		break;
	}
	case MT_ACT_CLEAR:
		agg_clear(c, aggid);
		break;
	case MT_ACT_NORMALIZE:
		if (aggid && aggid <= c->prog->naggs) {
			int64_t n = rec_value(c, a, 0, data);
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
	case MT_ACT_SYSTEM:
		if ((s = format_action(c, a, ai, data, 0)) != NULL && c->json) {
			js_system(c, s);
			free(s);
		} else if (s != NULL) {
			fflush(c->out);
			fflush(c->err);
			if (system(s) == -1)
				fprintf(c->err, "dtrace: system() failed\n");
			free(s);
		}
		break;
	case MT_ACT_FREOPEN:
		/* JSON: one document on one output, so no redirection */
		s = format_action(c, a, ai, data, 0);
		if (c->json)
			js_text(c, "freopen", s ? s : "");
		else
			act_freopen(c, s);
		free(s);
		break;
	case MT_ACT_FTRUNCATE:
		if (c->json)
			break;
		fflush(c->out);
		if (ftruncate(fileno(c->out), 0) == 0)
			fseeko(c->out, 0, SEEK_SET);
		break;
	case MT_ACT_PRINT:
		act_print(c, a, data);
		break;
	case MT_ACT_SYM: case MT_ACT_MOD: case MT_ACT_USYM: case MT_ACT_UMOD:
	case MT_ACT_UADDR:
		if (r) {
			struct mt_rec_info ri = { MT_TI_SYM, 0, r->size, NULL,
						 NULL };

			ri.kind = a->kind == MT_ACT_SYM ? MT_TI_SYM :
				  a->kind == MT_ACT_MOD ? MT_TI_MOD :
				  a->kind == MT_ACT_USYM ? MT_TI_USYM :
				  a->kind == MT_ACT_UMOD ? MT_TI_UMOD : MT_TI_UADDR;
			if (c->json)
				js_sym(c, &ri, data + r->offset);
			else
				print_key_datum(c, c->out, &ri,
						data + r->offset);
		}
		break;
	default:
		break;
	}
}
