/*
 * The reader's whole-trace facts beyond reader.c's: every env entry (the
 * report shows what was traced) and each CPU's events_discarded (the
 * report's drops per CPU).
 */
#include <string.h>
#include "reader_int.h"

uint32_t
mt_trace_nenv(const struct mt_trace *t)
{
	return t->nenv;
}

int
mt_trace_env_at(const struct mt_trace *t, uint32_t i, const char **key,
		const char **val)
{
	if (i >= t->nenv)
		return -1;
	*key = t->env[i].key;
	*val = t->env[i].val;
	return 0;
}

/*
 * A packet's events_discarded counts the stream's losses so far: cpu's
 * total is the last one of its packets (a CPU may have several streams).
 */
uint64_t
mt_trace_discarded_cpu(const struct mt_trace *t, uint32_t cpu)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < t->nstreams; i++) {
		const struct ctf_rstream *s = &t->streams[i];
		uint64_t last = 0, psize;
		uint32_t magic, pcpu;
		size_t off = 0;

		while (off + CTF_PKT_HDR <= s->size) {
			memcpy(&magic, s->data + off, 4);
			if (magic != CTF_MAGIC)
				break;
			memcpy(&pcpu, s->data + off + 56, 4);
			if (pcpu == cpu)
				memcpy(&last, s->data + off + 48, 8);
			memcpy(&psize, s->data + off + 32, 8);
			if (psize / 8 < CTF_PKT_HDR)
				break;
			off += psize / 8;
		}
		n += last;
	}
	return n;
}
