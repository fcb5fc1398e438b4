/*
 * The mt_plat_* hooks for the local target: the runtime hosted inside the
 * machtrace process (single-threaded, CPU 0).  Ordinary host code.  Only
 * memory the runtime owns and the probe's argument data are loadable; the
 * runtime checks both itself, so nothing else is.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/syscall.h>
#include "machtrace/runtime.h"
#include "targets/local/local.h"

static char execname[64];
static uint64_t tid;
/*
 * vtimestamp: CPU time of machtrace's thread (it fires every probe)
 * less the CPU time spent firing, as of the firing's start: `start` is
 * the virtual time then, `probe` the firings' CPU time so far.
 */
static struct { uint64_t at, start, probe; } vclock;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t mt_plat_time(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

void mt_local_plat_fire_start(void)
{
	vclock.at = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	vclock.start = vclock.at - vclock.probe;
}

void mt_local_plat_fire_end(void)
{
	vclock.probe += clock_ns(CLOCK_THREAD_CPUTIME_ID) - vclock.at;
}

uint64_t mt_plat_walltime(void)
{
	return clock_ns(CLOCK_REALTIME);
}

uint32_t mt_plat_cpu(void)
{
	return 0;
}

uint64_t mt_plat_loadable(const struct mt_pctx *ctx, uint64_t addr,
			  uint64_t size)
{
	return 0;
}

uint64_t mt_plat_var(const struct mt_pctx *ctx, uint32_t var)
{
	switch (var) {
	case MT_VAR_PID: return (uint64_t)getpid();
	case MT_VAR_TID:		/* machtrace traces from one thread */
		if (!tid)
			tid = (uint64_t)syscall(SYS_gettid);
		return tid;
	case MT_VAR_PPID: return (uint64_t)getppid();
	case MT_VAR_UID: return (uint64_t)getuid();
	case MT_VAR_GID: return (uint64_t)getgid();
	case MT_VAR_CURTHREAD: return (uint64_t)pthread_self();
	case MT_VAR_VTIMESTAMP: return vclock.start;
	default: return 0;
	}
}

static void load_execname(void)
{
	FILE *f;

	if (execname[0])
		return;
	f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(execname, sizeof(execname), f))
			execname[strcspn(execname, "\n")] = '\0';
		fclose(f);
	}
	if (!execname[0])
		snprintf(execname, sizeof(execname), "machtrace");
}

void mt_plat_strvar(const struct mt_pctx *ctx, uint32_t var, char *buf,
		    uint32_t len)
{
	const char *s = "";

	if (len == 0)
		return;
	if (var == MT_VAR_EXECNAME || var == MT_VAR_EXECARGS) {
		load_execname();
		s = execname;
	} else if (var == MT_VAR_ZONENAME) {
		s = "global";
	}
	snprintf(buf, len, "%s", s);
}

/* No Mach tasks or threads here. */
int64_t mt_plat_objid(const struct mt_pctx *ctx, int thread, uint64_t addr)
{
	return -1;
}

void mt_plat_objname(const struct mt_pctx *ctx, uint64_t thread, char *buf,
		     uint32_t len)
{
	if (len)
		buf[0] = '\0';
}

uint64_t mt_plat_reg(const struct mt_pctx *ctx, int uregs, uint64_t idx,
		     int *ok)
{
	*ok = 0;
	return 0;
}

/* The local target's "user" memory is its own: read as any address. */
uint64_t mt_plat_ucopy(const struct mt_pctx *ctx, void *dst, uint64_t src,
		       uint64_t n, int str)
{
	return MT_UCOPY_NOTUSER;
}

uint32_t mt_plat_stack(const struct mt_pctx *ctx, int user, uint64_t *pcs,
		       uint32_t n)
{
	return 0;
}

/* No kernel here: the CLI refuses panic()/breakpoint() on the local
   target before tracing starts. */
void mt_plat_destructive(const struct mt_pctx *ctx, uint32_t act)
{
}

/* Called by the local target at attach so probe context never does I/O. */
void mt_local_plat_init(void)
{
	load_execname();
}
