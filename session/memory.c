/*
 * Host memory for the local target.  The runtime's state area (buffers,
 * aggregations, speculations, dynamic variables, scratch) lives in
 * machtrace's own memory and is zeroed when tracing starts, so every byte
 * the options ask for is really used.  dtrace allocates its buffers from
 * the kernel and, when an allocation fails, halves the size (bufresize=auto,
 * reporting "buffer size lowered to ...") or gives up (bufresize=manual:
 * "Not enough space").  machtrace does the same against a budget:
 *
 *   -x lockmem=SIZE when given, else the smaller of an eighth of the
 *   machine's physical memory and half of what is available now, and half
 *   of what RLIMIT_AS / RLIMIT_DATA still allow.
 *
 * A target that bounds the area itself (the kernel's reserved region,
 * mt_target_ops.area_max) is held to that bound instead, the same way.
 *
 * The resizable sizes are tried in dtrace's allocation order (principal
 * buffers, aggregation buffers, speculation buffers, dynamic variables),
 * each with the later ones not yet counted; what the others cost (strsize's
 * scratch, nspec's speculation headers) is never resized.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "machtrace/abi.h"
#include "machtrace/runtime.h"
#include "session/internal.h"

static uint64_t
min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* MemAvailable from /proc/meminfo in bytes, or 0 when unknown. */
static uint64_t
mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

/* Bytes of address space this process maps now (/proc/self/statm). */
static uint64_t
vm_size(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long long pages = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &pages) != 1)
		pages = 0;
	fclose(f);
	return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t
rlimit_room(int which, uint64_t used)
{
	struct rlimit rl;

	if (getrlimit(which, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return rl.rlim_cur > used ? (rl.rlim_cur - used) / 2 : 0;
}

static uint64_t
budget(const struct mt_opts *o)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t b = UINT64_MAX, avail = mem_available(), used = vm_size();

	if (o->lockmem)
		return o->lockmem;
	if (pages > 0 && psz > 0)
		b = (uint64_t)pages * (uint64_t)psz / 8;
	if (avail)
		b = min_u64(b, avail / 2);
	b = min_u64(b, rlimit_room(RLIMIT_AS, used));
	return min_u64(b, rlimit_room(RLIMIT_DATA, used));
}

/* dtrace(1)'s "%s lowered to N[kmgt]" (or "N bytes"). */
static void
report_lowered(FILE *err, const char *what, uint64_t nsize)
{
	int j = 0, mul = 10;

	for (; mul < 64 && (1ULL << mul) <= nsize; j++, mul += 10)
		continue;
	if (!(nsize & ((1ULL << (mul - 10)) - 1)))
		fprintf(err, "dtrace: %s lowered to %llu%c\n", what,
			(unsigned long long)(nsize >> (mul - 10)),
			" kmgtpe"[j]);
	else
		fprintf(err, "dtrace: %s lowered to %llu bytes\n", what,
			(unsigned long long)nsize);
}

int
mt_session_fit_memory(const struct mt_opts *opts, FILE *err, struct mt_target *t,
		      struct mt_image *img)
{
	struct mt_options *o = &img->opt;
	uint64_t *sizes[4] = { &o->bufsize, &o->aggsize, &o->specsize,
			       &o->dynvarsize };
	static const char *const names[4] = {
		"buffer size", "aggregation size", "speculation size",
		"dynamic variable size"
	};
	uint64_t want[4], need, lim = t->ops->area_max ?
		t->ops->area_max(t, img) : budget(opts);

	need = mt_rt_size(img);
	if (need == 0 || need <= lim)
		return 0;	/* an invalid image is attach's to report */
	if (opts->bufresize == 1)
		goto nospace;
	for (int i = 0; i < 4; i++) {
		want[i] = *sizes[i];
		*sizes[i] = 0;
	}
	for (int i = 0; i < 4; i++) {
		*sizes[i] = want[i];
		while ((need = mt_rt_size(img)) > lim && *sizes[i] > 8)
			*sizes[i] = (*sizes[i] / 2) & ~7ULL;
	}
	need = mt_rt_size(img);
	if (need == 0 || need > lim)
		goto nospace;
	for (int i = 0; i < 4; i++)
		if (*sizes[i] < want[i] && !opts->quietresize)
			report_lowered(err, names[i], *sizes[i]);
	return 0;
nospace:
	fprintf(err, "dtrace: could not enable tracing: Not enough space "
		"(the enabling needs %llu bytes of %s, machtrace allows %llu%s)\n",
		(unsigned long long)need, t->ops->area_max ?
		"the kernel's reserved region" : "host memory",
		(unsigned long long)lim, t->ops->area_max ? "" : "; see -x lockmem");
	return -1;
}
