/*
 * The session's run: what an image may not do on its target, the consume
 * loop (work) and the end of tracing (stop).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "machtrace/consumer.h"
#include "machtrace/session.h"

/*
 * Destructive actions and subroutines the image uses (dtrace's
 * DTRACEACT_*DESTRUCTIVE and copyout/copyoutstr): a bit per kind, the
 * subroutines as MT_ACT__COUNT + 0/1.
 */
static uint64_t
destructive_uses(const struct mt_image *img)
{
	const struct mt_action *a = (const void *)((const char *)img + img->actions_off);
	const mt_instr_t *text = (const void *)((const char *)img + img->text_off);
	uint64_t m = 0;

	for (uint32_t i = 0; i < img->nactions; i++)
		switch (a[i].kind) {
		case MT_ACT_SYSTEM: case MT_ACT_FREOPEN: case MT_ACT_CHILL:
		case MT_ACT_RAISE: case MT_ACT_STOP: case MT_ACT_BREAKPOINT:
		case MT_ACT_PANIC:
			m |= 1ull << a[i].kind;
			break;
		}
	for (uint32_t i = 0; i < img->ntext; i++)
		if (MT_OP(text[i]) == MT_OP_CALL && (MT_V16(text[i]) == MT_SUBR_COPYOUT ||
						     MT_V16(text[i]) == MT_SUBR_COPYOUTSTR))
			m |= 1ull << (MT_ACT__COUNT + (MT_V16(text[i]) == MT_SUBR_COPYOUTSTR));
	return m;
}

/* Destructive actions without -w: dtrace refuses them when it enables
   (EDT_DESTRUCTIVE); with -w, what means nothing for this target instead
   of silently doing nothing. */
const char *
mt_session_refused(const struct mt_image *img, const struct mt_target *t,
		   char *buf, size_t len)
{
	static const struct { int bit; const char *name; } proc[] = {
		{ MT_ACT_RAISE, "raise" }, { MT_ACT_STOP, "stop" },
		{ MT_ACT__COUNT, "copyout" }, { MT_ACT__COUNT + 1, "copyoutstr" },
	};
	uint64_t m = destructive_uses(img);

	if (m && !(img->opt.flags & MT_OPT_F_DESTRUCTIVE))
		return "Destructive actions not allowed";
	for (size_t i = 0; i < sizeof proc / sizeof proc[0]; i++)
		if (m & (1ull << proc[i].bit)) {
			snprintf(buf, len, "%s( ) acts on the user process that fired the "
				 "probe: GNU Mach tasks have no signals or process stops, and "
				 "machtrace writes no task's memory", proc[i].name);
			return buf;
		}
	if ((m & (1ull << MT_ACT_PANIC | 1ull << MT_ACT_BREAKPOINT)) &&
	    strcmp(t->ops->name, "mach") != 0) {
		snprintf(buf, len, "%s( ) acts on the kernel: trace one (--mach)",
			 m & (1ull << MT_ACT_PANIC) ? "panic" : "breakpoint");
		return buf;
	}
	return NULL;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * dtrace notices exit() when it checks the status: right after BEGIN, then
 * once per statusrate.  END fires then, so scripts can measure the delay.
 */
static void
wait_status_tick(const struct mt_session_work *w, struct mt_consumer *c,
		 uint64_t start)
{
	uint64_t rate = w->opts->statusrate, now = now_ns(), next;
	struct timespec ts;

	if (rate == 0)
		return;
	next = start + ((now - start + rate - 1) / rate) * rate;
	while (!*w->intr && (now = now_ns()) < next) {
		uint64_t d = next - now > 50000000ULL ? 50000000ULL : next - now;

		ts.tv_sec = 0;
		ts.tv_nsec = (long)d;
		nanosleep(&ts, NULL);
		mt_consume(c);
		mt_consume_drops(c);
	}
}

int
mt_session_work(struct mt_session *s, struct mt_target *t,
		struct mt_consumer *c, const struct mt_session_work *w)
{
	FILE *err = mt_session_err(s);
	int rc = 0, first = 1, failed = 0;
	uint64_t step = 10000000ULL, start = now_ns();

	if (w->opts->switchrate && w->opts->switchrate < step)
		step = w->opts->switchrate;
	while (!*w->intr) {
		rc = t->ops->poll(t, step);
		if (mt_consume(c) != 0) {
			fprintf(err, "dtrace: processing aborted: %s\n",
				mt_consumer_error(c));
			failed = 1;
			break;
		}
		mt_consume_drops(c);
		if (w->poll && w->poll(w->arg, c) != 0)
			break;
		if (rc != 0 || mt_consumer_done(c)) {
			/* the first status check is right after BEGIN */
			if (rc >= 0 && mt_consumer_exited(c) && !first)
				wait_status_tick(w, c, start);
			break;
		}
		first = 0;
	}
	/* dtrace tidies the terminal after ^C, whose echo left the cursor
	   on its line (not when testing); in a file or a pipe there is no
	   echo, and the newline was a second blank line before the
	   aggregations */
	if (*w->intr && !getenv("_DTRACE_TESTING") && isatty(fileno(w->out))) {
		fputc('\n', w->out);
		fflush(w->out);
	}
	if (rc < 0 && !failed) {
		fprintf(err, "dtrace: processing aborted: %s\n", mt_target_error(t));
		failed = 1;
	}
	return failed;
}

int
mt_session_stop(struct mt_session *s, struct mt_target *t,
		struct mt_consumer *c, int failed)
{
	FILE *err = mt_session_err(s);
	int was = failed;

	if (t->ops->end(t) != 0 && !failed) {
		fprintf(err, "dtrace: couldn't stop tracing: %s\n", mt_target_error(t));
		failed = 1;
	}
	if (mt_consume(c) != 0 && !failed) {
		fprintf(err, "dtrace: processing aborted: %s\n", mt_consumer_error(c));
		failed = 1;
	}
	mt_consume_drops_final(c);
	return failed && !was;
}
